import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as a `curl` command line, secrets redacted, for pasting into a
/// terminal.
enum CURLCommand {
    /// Bodies larger than this are left out of the command.
    private static let bodyLimit = 16 * 1024

    static func make(_ request: URLRequest, redactor: LogRedactor) -> String {
        var parts = ["curl"]
        let method = request.httpMethod ?? "GET"
        if method != "GET" {
            parts.append("-X \(method)")
        }
        for (name, value) in redactor.headerFields(request.allHTTPHeaderFields ?? [:]) {
            parts.append("-H \(quoted("\(name): \(value)"))")
        }
        if let body = request.httpBody, !body.isEmpty {
            let contentType = request.value(forHTTPHeaderField: "Content-Type")?.lowercased() ?? ""
            if body.count <= bodyLimit, BodyFormatter.isText(body, contentType: contentType) {
                var text = String(decoding: body, as: UTF8.self)
                if BodyFormatter.has(contentType, "x-www-form-urlencoded") {
                    text = redactor.formFields(text)
                } else if BodyFormatter.isJSON(body, contentType: contentType) {
                    text = redactor.jsonText(text)
                }
                parts.append("--data-binary \(quoted(text))")
            } else {
                parts.append("--data-binary @body.bin")
                parts.append("# body: \(body.count) bytes, not shown")
            }
        } else if request.httpBodyStream != nil {
            parts.append("--data-binary @body.bin")
            parts.append("# body: a stream, not shown")
        }
        parts.insert(quoted(redactor.url(request.url)), at: 1)
        return parts.joined(separator: " ")
    }

    /// Single-quoted for a POSIX shell.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
