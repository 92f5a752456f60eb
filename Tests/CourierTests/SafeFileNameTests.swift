import Courier
import Foundation
import Testing

/// A file name from a server is only ever a last path component.
@Suite struct SafeFileNameTests {
    @Test(arguments: [
        ("report.pdf", "report.pdf"),
        ("..", "download"),
        (".", "download"),
        ("", "download"),
        ("   ", "download"),
        ("../../x", "x"),
        ("/etc/passwd", "passwd"),
        ("a/../../b", "b"),
        ("..\\..\\win.ini", "win.ini"),
        ("a\u{0}b.txt", "ab.txt"),
        ("line\nbreak", "linebreak"),
        (".bashrc", "bashrc"),
        ("/", "download"),
        // Found by the Content-Disposition fuzz harness: dots, then spaces,
        // then dots again.
        ("....... ..", "download"),
        ("\u{0}..\u{0}\u{0}........ \u{0}\u{0}..", "download"),
        (". .. x", "x"),
        // Found by the harness once it had coverage: U+0604 and the "/" after
        // it are one character, so a split on characters kept the "/".
        ("a\u{604}/../b", "b"),
        ("..\u{604}/..\u{604}/etc", "etc"),
        ("x\u{604}\\y", "y"),
    ])
    func aServerNameBecomesOneSafeComponent(name: String, expected: String) {
        #expect(DownloadDestinations.safeFileName(name) == expected)
    }

    @Test func aLongNameIsCutTo255Bytes() {
        let name = DownloadDestinations.safeFileName(String(repeating: "é", count: 300))
        #expect(name.utf8.count <= 255)
        #expect(!name.isEmpty)
    }

    @Test func noNameUsesTheFallback() {
        #expect(DownloadDestinations.safeFileName(nil, fallback: "file") == "file")
    }
}
