import Courier
import CourierAuth
import CourierTestSupport
import Foundation
import Testing

struct FileCredentialStoreTests {
    /// A fresh directory under the system's temporary one, removed afterwards.
    private func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CourierAuthTests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    private let credential = Credential(
        accessToken: "access-secret", refreshToken: "refresh-secret", expiresAt: Date(timeIntervalSince1970: 1_800_000_000)
    )

    @Test func savesAFileOnlyItsOwnerCanReadAndLeavesNoTemporaryFile() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("credential.json")
            let store = FileCredentialStore(fileURL: file)

            try store.save(credential)
            try store.save(credential)

            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["credential.json"])
            #expect(FileCredentialStore(fileURL: file).credential == credential)
        }
    }

    @Test func replacingALooserFileLeavesItAt0600() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("credential.json")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o644]))

            try FileCredentialStore(fileURL: file, warningHandler: { _ in }).save(credential)

            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
    }

    @Test func aCorruptFileMakesAnEmptyStoreAndAWarningWithoutTheFilesContents() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("credential.json")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data(#"{"accessToken": "half-written-secr"#.utf8),
                                                   attributes: [.posixPermissions: 0o600]))
            let warnings = Mutex<[String]>([])

            let store = FileCredentialStore(fileURL: file, warningHandler: { message in warnings.withLock { $0.append(message) } })

            #expect(store.credential == nil)
            #expect(store.isExpired())
            let messages = warnings.withLock { $0 }
            #expect(messages.count == 1)
            #expect(messages.first?.contains(file.path) == true)
            #expect(messages.first?.contains("half-written-secr") == false)

            try store.save(credential)
            #expect(FileCredentialStore(fileURL: file).credential == credential)
        }
    }

    @Test func clearRemovesTheFile() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("credential.json")
            let store = FileCredentialStore(fileURL: file)
            try store.save(credential)

            try store.clear()
            try store.clear()

            #expect(store.credential == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func aFailedWriteKeepsThePreviousCredentialAndSaysWhere() throws {
        try withDirectory { directory in
            let blocker = directory.appendingPathComponent("not-a-directory")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: blocker)
            let file = blocker.appendingPathComponent("credential.json")
            let store = FileCredentialStore(fileURL: file)

            let error = #expect(throws: CredentialStoreError.self) { try store.save(credential) }

            #expect(store.credential == nil)
            #expect("\(error.map { "\($0)" } ?? "")".contains(file.path))
        }
    }

    @Test func theTokenAPIWorksOnTheFile() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("nested/credential.json")
            let store = FileCredentialStore(fileURL: file)
            let now = Date(timeIntervalSince1970: 1_800_000_000)

            try store.update(token: "a1", refreshToken: "r1", expiresIn: 60, now: now)
            try store.update(token: "a2", expiresIn: 60, now: now)

            let reopened = FileCredentialStore(fileURL: file)
            #expect(reopened.accessToken == "a2")
            #expect(reopened.refreshToken == "r1")
            #expect(!reopened.isExpired(now: now.addingTimeInterval(59)))
            #expect(reopened.isExpired(now: now.addingTimeInterval(60)))
            #expect(reopened.isExpired(leeway: 30, now: now.addingTimeInterval(30)))
        }
    }
}
