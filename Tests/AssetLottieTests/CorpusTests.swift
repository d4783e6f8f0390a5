import Foundation
import Testing
@testable import AssetLottie

/// The whole Lottie corpus: facts against Python's reading, strict mode, round trips.
struct CorpusTests {
    static let referenceRows: [[String: String]] = (try? Fixtures.tsv("reference.tsv")) ?? []
    static let jsonFiles: [String] = ((try? Fixtures.corpus()) ?? [])
        .filter { $0.expect.hasPrefix("parse-ok") && ($0.path.hasSuffix(".json") || $0.path.hasSuffix(".lot")) }
        .map(\.path)

    @Test func referenceCoversEveryParseOkFile() throws {
        let parseOK = Set(try Fixtures.corpus().filter { $0.expect.hasPrefix("parse-ok") }.map(\.path))
        #expect(parseOK.count == 191)
        #expect(Set(Self.referenceRows.map { $0["path"]! }) == parseOK)
    }

    @Test(arguments: referenceRows)
    func parsesLenientlyWithPythonsFacts(row: [String: String]) throws {
        let path = row["path"]!
        let document = try LottieDocumentReader().read(contentsOfFile: Fixtures.url(path).path)
        let id = row["id"] == "-" ? nil : row["id"]
        let entry = try #require(document.animations.first { $0.id == id }, "\(path) has no animation \(id ?? "-")")
        let animation = entry.animation
        func number(_ key: String) -> Double? { row[key] == "-" ? nil : Double(row[key]!) }
        #expect(animation.version == (row["version"] == "-" ? nil : row["version"]), "\(path)")
        #expect(animation.frameRate == number("fr"), "\(path) fr")
        #expect(animation.inPoint == number("ip"), "\(path) ip")
        #expect(animation.outPoint == number("op"), "\(path) op")
        #expect(animation.width == number("w"), "\(path) w")
        #expect(animation.height == number("h"), "\(path) h")
        #expect(animation.layers.map { Double($0.count) } == number("layers"), "\(path) layers")
        #expect(animation.assets.map { Double($0.count) } == number("assets"), "\(path) assets")
        _ = animation.usedAssetIDs
    }

    /// Where strict mode must name the problem of each must-fail file.
    static let mustFailPaths = [
        "lottie-spec/invalid/malformed-embedded-image.json": "$.assets[0].p",
        "lottie-spec/invalid/invalid-animated-val.json": "$.layers[0].ks.a.a",
    ]

    @Test func mustFailFilesAreNamedByStrictMode() throws {
        let mustFail = try Fixtures.corpus().filter { $0.expect == "must-fail-strict-validation" }
        #expect(Set(mustFail.map(\.path)) == Set(Self.mustFailPaths.keys))
        for file in mustFail {
            let data = try Fixtures.data(file.path)
            // Lenient parsing accepts it, like the players.
            _ = try LottieParser().parse(data)
            let error = #expect(throws: LottieError.validationFailed) {
                try LottieParser(configuration: .strict).parse(data)
            }
            let expected = try #require(Self.mustFailPaths[file.path])
            #expect(error?.problems.contains { $0.path == expected } == true, "\(file.path): \(error?.problems ?? [])")
        }
    }

    @Test(arguments: jsonFiles)
    func roundTripKeepsTheJSON(path: String) throws {
        let data = try Fixtures.data(path)
        let parser = LottieParser()
        let input = try parser.parseJSON([UInt8](data))
        // Our reading agrees with Foundation's.
        let reference = try ReferenceJSON.read(data)
        #expect(reference.matches(input), "\(path): parser disagrees with JSONSerialization")
        // Model -> JSON -> value equals the input.
        let animation = try parser.parse(data)
        let encoded = animation.encoded()
        let output = try parser.parseJSON(encoded)
        #expect(output.isEquivalent(to: input), "\(path): round trip changed the JSON")
        #expect(reference.matches(output), "\(path): round trip disagrees with JSONSerialization")
        // And the model read back is the same model.
        #expect(try parser.parse(encoded) == animation)
    }
}
