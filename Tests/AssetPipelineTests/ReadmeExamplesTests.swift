import Foundation
import Testing

/// README.md's Swift blocks are the regions of Sources/AssetExamples/main.swift, which
/// `scripts/examples` builds and runs against the demo origin: a block edited in one place only
/// fails here.
@Suite("README examples") struct ReadmeExamplesTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `(name, code)` for each Swift block of `markdown`; the name is the `<!-- example: NAME -->`
    /// line right above the block, nil when there is none.
    static func swiftBlocks(of markdown: String) -> [(name: String?, code: String)] {
        var blocks: [(String?, String)] = []
        var lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)[...]
        var previous: Substring = ""
        while let line = lines.popFirst() {
            defer { previous = line }
            guard line == "```swift" else { continue }
            var code: [Substring] = []
            while let inner = lines.popFirst(), inner != "```" { code.append(inner) }
            blocks.append((name(inMarker: previous), code.joined(separator: "\n")))
        }
        return blocks
    }

    static func name(inMarker line: Substring) -> String? {
        let prefix = "<!-- example: ", suffix = " -->"
        guard line.hasPrefix(prefix), line.hasSuffix(suffix) else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// `name → code` for each `// README: NAME` ... `// README: end` region of `source`.
    static func regions(of source: String) -> [String: String] {
        var regions: [String: String] = [:]
        var current: (name: String, lines: [Substring])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("// README: ") {
                let name = String(line.dropFirst("// README: ".count))
                if name == "end", let region = current {
                    regions[region.name] = region.lines.joined(separator: "\n")
                    current = nil
                } else {
                    current = (name, [])
                }
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        return regions
    }

    @Test func everySwiftBlockOfTheReadmeIsAnExampleThatRuns() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let examples = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/AssetExamples/main.swift"), encoding: .utf8)
        let blocks = Self.swiftBlocks(of: readme)
        let regions = Self.regions(of: examples)
        #expect(blocks.count >= 8, "README.md has its Swift blocks")
        var named = Set<String>()
        for (name, code) in blocks {
            guard let name else {
                Issue.record("a Swift block of README.md has no <!-- example: NAME --> line above it:\n\(code)")
                continue
            }
            named.insert(name)
            guard let region = regions[name] else {
                Issue.record("README.md's block '\(name)' has no region in Sources/AssetExamples/main.swift")
                continue
            }
            #expect(region == code, "README.md's block '\(name)' differs from its example")
        }
        #expect(Set(regions.keys) == named, "every example region is a README block")
    }

    @Test func theExtractionSeesADifference() {
        let markdown = "text\n<!-- example: a -->\n```swift\nlet x = 1\n```\n```swift\nlet y = 2\n```\n"
        let blocks = Self.swiftBlocks(of: markdown)
        #expect(blocks.count == 2)
        #expect(blocks[0].name == "a" && blocks[0].code == "let x = 1")
        #expect(blocks[1].name == nil && blocks[1].code == "let y = 2")
        let regions = Self.regions(of: "// README: a\nlet x = 2\n// README: end\n")
        #expect(regions == ["a": "let x = 2"])
        #expect(regions["a"] != blocks[0].code)
    }
}
