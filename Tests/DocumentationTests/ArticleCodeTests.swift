// Every ```swift block in the documentation catalogs (Core/Courier.docc and
// the catalog beside each plugin and mapper) is code that compiles: its lines
// appear, in order and together, in one of the Swift files of this test
// target, which the compiler checks and the tests here run. Indentation and
// blank lines are ignored, so a snippet may sit inside a function here and at
// the left margin in the article. A block that is not compiled (a package
// manifest, a shell command) uses another fence: ``` or ```bash.

import Foundation
import Testing

/// The repository's root, found from this file.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The Swift code blocks of one article.
struct ArticleBlock: CustomTestStringConvertible, Sendable {
    let article: String
    let line: Int
    let code: [String]
    var testDescription: String { "\(article):\(line)" }
}

/// Lines without their indentation, blank lines dropped.
func normalised(_ text: some StringProtocol) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
}

func articles() throws -> [URL] {
    var found: [URL] = []
    for folder in ["Core", "Plugins", "Mappers"] {
        let root = repositoryRoot.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
        for case let url as URL in walker where url.pathExtension == "md" && url.path.contains(".docc/") {
            found.append(url)
        }
    }
    return found.sorted { $0.path < $1.path }
}

func swiftBlocks() throws -> [ArticleBlock] {
    var blocks: [ArticleBlock] = []
    for url in try articles() {
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence == "```swift" else {
                index += 1
                continue
            }
            let start = index + 1
            var end = start
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" { end += 1 }
            let name = url.path.replacingOccurrences(of: repositoryRoot.path + "/", with: "")
            blocks.append(ArticleBlock(article: name, line: start, code: normalised(lines[start..<end].joined(separator: "\n"))))
            index = end + 1
        }
    }
    return blocks
}

/// The normalised lines of every Swift file of this test target.
let compiledSources: [[String]] = {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    var files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
    // The migration article's port, compiled and run with the Moya
    // compatibility tests.
    files.append(folder.deletingLastPathComponent().appendingPathComponent("MoyaCompatibilityTests/MigrationGuideTests.swift"))
    return files.filter { $0.pathExtension == "swift" }.compactMap { url in
        (try? String(contentsOf: url, encoding: .utf8)).map { normalised($0) }
    }
}()

func contains(_ haystack: [String], _ needle: [String]) -> Bool {
    guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
    for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
        return true
    }
    return false
}

@Suite struct ArticleCodeTests {
    @Test func theCatalogsHaveArticlesWithCode() throws {
        let names = try articles().map(\.lastPathComponent)
        for article in [
            "GettingStarted.md", "TargetsAndTasks.md", "UsingPlugins.md", "Authentication.md", "Caching.md",
            "ChoosingATransport.md", "TestingWithStubs.md", "MisbehavingServers.md",
        ] {
            #expect(names.contains(article), "Core/Courier.docc has no \(article)")
        }
        #expect(try swiftBlocks().count >= 20)
    }

    @Test(arguments: try swiftBlocks())
    func everySwiftBlockIsCompiledHere(_ block: ArticleBlock) {
        #expect(
            compiledSources.contains { contains($0, block.code) },
            "\(block.article) line \(block.line): this block is not in Tests/DocumentationTests; copy it into a snippet file there so it compiles"
        )
    }
}
