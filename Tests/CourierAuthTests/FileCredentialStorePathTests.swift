import Courier
import CourierAuth
import CourierTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What sits at a credential file's path is not always the file it should be.
@Suite(.hangsFailTheSuite) struct FileCredentialStorePathTests {
    private let credential = Credential(accessToken: "access-secret", refreshToken: "refresh-secret")

    private func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CourierAuthPathTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    /// A store created on a symbolic link to someone's credential file does
    /// not read through it.
    @Test func aSymbolicLinkIsNeverFollowed() throws {
        try withDirectory { directory in
            let elsewhere = directory.appendingPathComponent("elsewhere.json")
            try FileCredentialStore(fileURL: elsewhere).save(credential)
            let link = directory.appendingPathComponent("credential.json")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: elsewhere)
            let warnings = Mutex<[String]>([])

            let store = FileCredentialStore(fileURL: link, warningHandler: { message in warnings.withLock { $0.append(message) } })

            #expect(store.credential == nil)
            #expect(warnings.withLock { $0 }.contains { $0.contains("symbolic link") })
        }
    }

    /// A FIFO would block the read for ever.
    @Test func aFIFOAtThePathIsIgnoredAtOnce() throws {
        try withDirectory { directory in
            let fifo = directory.appendingPathComponent("credential.json")
            #expect(mkfifo(fifo.path, 0o600) == 0)
            let warnings = Mutex<[String]>([])

            let store = FileCredentialStore(fileURL: fifo, warningHandler: { message in warnings.withLock { $0.append(message) } })

            #expect(store.credential == nil)
            #expect(warnings.withLock { $0 }.contains { $0.contains("not a regular file") })
        }
    }

    @Test func aFileOthersCanReadIsReadWithAWarning() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("credential.json")
            try FileCredentialStore(fileURL: file).save(credential)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            let warnings = Mutex<[String]>([])

            let store = FileCredentialStore(fileURL: file, warningHandler: { message in warnings.withLock { $0.append(message) } })

            #expect(store.credential == credential)
            let warning = try #require(warnings.withLock { $0 }.first)
            #expect(warning.contains("can be read by other users (mode 644)"))
            #expect(!warning.contains("secret"))
        }
    }
}
