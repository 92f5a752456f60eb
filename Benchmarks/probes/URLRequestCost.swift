// What building a URLRequest for every call costs on this platform, against
// building the URL alone: the figure behind keeping `URLRequest` as the
// request every call builds (instead of making it only when a plugin or
// `Response.request` reads it). Run by `Benchmarks/urlrequest-cost`.
//
// Three loops of 200,000 each, nanoseconds a turn: the URL a provider builds
// from a base and a path; the same plus a `URLRequest` with a time-out, its
// header fields, method and URL read back as a transport reads them; and the
// same with one header field set, as a target with one `headers` entry does.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

guard let base = URL(string: "http://127.0.0.1:8089") else { exit(1) }
let turns = 200_000
func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
var sink = 0

func measure(_ body: (Int) -> Int) -> Double {
    let start = nanoseconds()
    for turn in 0..<turns { sink &+= body(turn) }
    return Double(nanoseconds() - start) / Double(turns)
}

let urlOnly = measure { turn in
    base.appendingPathComponent("json").absoluteString.utf8.count &+ turn
}
let withRequest = measure { turn in
    var request = URLRequest(url: base.appendingPathComponent("json"))
    request.timeoutInterval = 30
    let fields = request.allHTTPHeaderFields ?? [:]
    return fields.count &+ (request.httpMethod?.utf8.count ?? 0) &+ (request.url?.absoluteString.utf8.count ?? 0) &+ turn
}
let withField = measure { turn in
    var request = URLRequest(url: base.appendingPathComponent("json"))
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    request.timeoutInterval = 30
    let fields = request.allHTTPHeaderFields ?? [:]
    return fields.count &+ (request.httpMethod?.utf8.count ?? 0) &+ (request.url?.absoluteString.utf8.count ?? 0) &+ turn
}
print(String(format: "URL alone %.0f ns; with a URLRequest built and read %.0f ns (+%.0f); with one header field %.0f ns (+%.0f)",
             urlOnly, withRequest, withRequest - urlOnly, withField, withField - urlOnly))
if sink == 42 { print("") }
