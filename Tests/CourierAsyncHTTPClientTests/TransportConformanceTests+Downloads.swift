import Courier
import CourierTestSupport
import Foundation
import Testing

/// Downloads from a server that cannot be trusted: names, error statuses and
/// half-finished transfers never touch anything but the destination.
extension TransportConformanceTests {
    static let hostileNames = ["..", "", ".", "../../x", "/etc/x", "a/../../b", "..\\\\..\\\\win.ini"]

    @Test(arguments: TransportKind.allCases, hostileNames)
    func aSuggestedNameNeverLeavesItsFolder(kind: TransportKind, name: String) async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let folder = root.file("downloads")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: root.file("sentinel"))
        try await kind.withProvider { provider, server in
            server.route("/named") { _ in
                LoopbackResponse(headers: [("Content-Disposition", "attachment; filename=\"\(name)\"")], body: .data(Data("payload".utf8)))
            }
            let target = TestTarget(server.baseURL, path: "/named", task: .downloadDestination(DownloadDestinations.suggestedFile(in: folder)))
            let response = try await provider.request(target)
            let file = try #require(response.fileURL)
            #expect(file.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path)
            #expect(![".", "..", ""].contains(file.lastPathComponent))
            #expect(try Data(contentsOf: file) == Data("payload".utf8))
            #expect(try Set(FileManager.default.contentsOfDirectory(atPath: root.url.path)) == ["downloads", "sentinel"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [file.lastPathComponent])
            #expect(try Data(contentsOf: root.file("sentinel")) == Data("keep".utf8))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aSuggestedNameNeverReplacesAFile(kind: TransportKind) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Data("mine".utf8).write(to: folder.file("report.pdf"))
        try await kind.withProvider { provider, server in
            server.route("/report") { _ in
                LoopbackResponse(headers: [("Content-Disposition", "attachment; filename=\"report.pdf\"")], body: .data(Data("theirs".utf8)))
            }
            let target = TestTarget(server.baseURL, path: "/report", task: .downloadDestination(DownloadDestinations.suggestedFile(in: folder.url)))
            let response = try await provider.request(target)
            #expect(response.fileURL?.lastPathComponent == "report (2).pdf")
            #expect(try Data(contentsOf: folder.file("report.pdf")) == Data("mine".utf8))
        }
    }

    @Test(arguments: TransportKind.allCases, [401, 404, 503])
    func anErrorStatusNeverReplacesADownloadedFile(kind: TransportKind, status: Int) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let destination = folder.file("good.bin")
        try Data("good".utf8).write(to: destination)
        try await kind.withProvider { provider, server in
            let target = TestTarget(server.baseURL, path: "/status/\(status)", task: .downloadDestination(DownloadDestinations.file(destination)))
            let error = await failure(of: target, on: provider)
            guard case .statusCode(let response) = error else {
                Issue.record("expected statusCode, got \(String(describing: error))")
                return
            }
            #expect(response.statusCode == status)
            #expect(response.data == Data("status \(status)".utf8))
            let kept = try Data(contentsOf: destination)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            #expect(kept == Data("good".utf8))
            #expect(files == ["good.bin"])
        }
    }

    /// A download is placed where it was written, before the plugins see the
    /// response: they find the file at its destination. A status the
    /// target's validation does not accept leaves no file at all.
    @Test(arguments: TransportKind.allCases)
    func aDownloadIsPlacedBeforeThePluginsSeeItAndOnlyWhenAccepted(kind: TransportKind) async throws {
        struct FileWatcher: Plugin {
            let seen: Locked<(url: URL?, content: Data?)>
            func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
                let url = try? result.get().fileURL
                seen.withLock { $0 = (url, url.flatMap { try? Data(contentsOf: $0) }) }
            }
        }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let seen = Locked<(url: URL?, content: Data?)>((nil, nil))
        try await kind.withProvider(plugins: [FileWatcher(seen: seen)]) { provider, server in
            server.route("/report") { _ in LoopbackResponse(body: .data(Data("report".utf8))) }
            let destination = folder.file("report.txt")
            let accepted = TestTarget(server.baseURL, path: "/report", task: .downloadDestination(DownloadDestinations.file(destination)))
            let response = try await provider.request(accepted)
            #expect(response.fileURL?.standardizedFileURL == destination.standardizedFileURL)
            #expect(seen.withLock { $0.url }?.standardizedFileURL == destination.standardizedFileURL)
            #expect(seen.withLock { $0.content } == Data("report".utf8))

            let elsewhere = folder.file("refused.txt")
            let refused = TestTarget(server.baseURL, path: "/report", task: .downloadDestination(DownloadDestinations.file(elsewhere)),
                                     validationType: .customCodes([201]))
            let error = await failure(of: refused, on: provider)
            guard case .statusCode(let failed) = error else {
                Issue.record("expected statusCode, got \(String(describing: error))")
                return
            }
            #expect(failed.statusCode == 200)
            #expect(failed.fileURL == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["report.txt"])
        }
    }

    /// While the body is on its way, it sits in a 0600 file next to its
    /// destination; when the call ends without it, nothing is left.
    @Test(arguments: TransportKind.networked)
    func aCancelledDownloadLeavesNoFileAndItsTemporaryFileIsPrivate(kind: TransportKind) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try await kind.withFaultyProvider { provider, server in
            let target = TestTarget(server.url(.stallAfterHead), path: "", task: .downloadDestination(DownloadDestinations.file(folder.file("x.bin"))),
                                    timeout: 60)
            let task = Task { await failure(of: target, on: provider) }
            try await waitUntil("the temporary file appears", within: 60) {
                ((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []).contains { $0.hasSuffix(".download") }
            }
            let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).first)
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.file(name).path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            task.cancel()
            let error = await task.value
            #expect(error?.isCancelled == true, "got \(String(describing: error))")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
        }
    }

    @Test func aLargeMultipartBodyIsWrittenToAPrivateFile() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.file("big.bin")
        try LoopbackServer.bytes(count: 12_000_000).write(to: file)
        let form = MultipartFormData(parts: [MultipartFormBodyPart(provider: .file(file), name: "file")])
        guard case .temporaryFile(let url, _) = try form.encode() else {
            Issue.record("expected a temporary file")
            return
        }
        defer { try? FileManager.default.removeItem(at: url) }
        let fileMode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        let folderMode = try FileManager.default.attributesOfItem(atPath: url.deletingLastPathComponent().path)[.posixPermissions] as? NSNumber
        #expect(fileMode?.intValue == 0o600)
        #expect(folderMode?.intValue == 0o700)
    }
}
