import Foundation
import Testing
@testable import AssetLottie

/// Strict validation against the Lottie 1.0 schema: the spec's own valid/ and invalid/ examples, and the
/// whole corpus against the oracle in FILES.tsv (Python jsonschema with the same schema file).
struct SchemaConformanceTests {
    static func specFiles(_ folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.url("lottie-spec/" + folder).path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { "lottie-spec/\(folder)/\($0)" }
    }

    static let oracleRows: [[String: String]] = ((try? Fixtures.tsv("FILES.tsv")) ?? [])
        .filter { $0["oracle"]?.hasPrefix("lottie-spec 1.0 schema") == true }

    @Test func everySpecExampleIsHere() {
        #expect(Self.specFiles("valid").count == 8)
        #expect(Self.specFiles("invalid").count == 2)
        #expect(Self.oracleRows.count == 193)
    }

    @Test(arguments: specFiles("valid"))
    func specValidExamplePassesStrict(path: String) throws {
        let data = try Fixtures.data(path)
        let animation = try LottieParser(configuration: .strict).parse(data)
        #expect(LottieValidator().validate(animation).isEmpty, "\(path)")
    }

    @Test(arguments: specFiles("invalid"))
    func specInvalidExampleFailsStrictWithAPath(path: String) throws {
        let data = try Fixtures.data(path)
        #expect(!LottieSchema.problems(in: try LottieParser().parseJSON([UInt8](data))).isEmpty, "the schema alone rejects \(path)")
        let error = #expect(throws: LottieError.validationFailed) {
            try LottieParser(configuration: .strict).parse(data)
        }
        let problems = error?.problems ?? []
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { $0.path.hasPrefix("$.") && !$0.message.isEmpty }, "\(problems)")
    }

    @Test(arguments: oracleRows)
    func schemaAgreesWithTheOracle(row: [String: String]) throws {
        let path = try #require(row["path"])
        let oracleSaysValid = try #require(row["oracle"]).hasSuffix(": valid")
        let document = try LottieDocumentReader().read(contentsOfFile: Fixtures.url(path).path)
        let problems = document.animations.flatMap { LottieSchema.problems(in: $0.animation.json) }
        #expect(problems.isEmpty == oracleSaysValid, "\(path): \(problems.prefix(3))")
        #expect(problems.allSatisfy { $0.path.hasPrefix("$") && !$0.message.isEmpty })
    }
}
