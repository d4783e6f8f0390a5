/// The Lottie 1.0 JSON Schema (lottie-spec), compiled into Swift tables by `scripts/gen-lottie-schema`
/// (`Generated/LottieSchema+Tables.swift`), and its validation of a parsed document.
///
/// - Every keyword the schema uses is enforced: `type`, `const`, `enum`, `minimum`/`maximum`/
///   `exclusiveMinimum`, `minItems`/`maxItems`, `pattern`, `required`, `properties`,
///   `additionalProperties`, `items`, `allOf`, `oneOf`, `anyOf`, `not`, `if`/`then`/`else`, `$ref`.
/// - A conforming document costs one checking pass that stops at the first failure; only a failing
///   one is walked again to collect its problems, each with the JSON path where it is.
/// - Iterative (an explicit stack), and bounded: at most `limit` problems, one per path.
enum LottieSchema {
    /// The problems of `document` against the schema; empty when it conforms.
    static func problems(in document: JSONValue, limit: Int = 1_000) -> [LottieProblem] {
        var checking = SchemaEvaluator(collecting: false)
        if checking.run(document, node: rootNode) { return [] }
        var collecting = SchemaEvaluator(collecting: true, maxFailures: limit)
        _ = collecting.run(document, node: rootNode)
        // One problem per path, in order of first appearance: the most general failure there.
        var chosen: [(path: String, failure: SchemaFailure)] = []
        var positionByPath: [String: Int] = [:]
        for failure in collecting.failures {
            let path = failure.pathText
            if let position = positionByPath[path] {
                if failure.reportPriority < chosen[position].failure.reportPriority { chosen[position].failure = failure }
            } else if chosen.count < limit {
                positionByPath[path] = chosen.count
                chosen.append((path, failure))
            }
        }
        var problems = chosen.map { LottieProblem(path: $0.path, message: $0.failure.message) }
        if problems.isEmpty {
            problems.append(LottieProblem(path: "$", message: "does not conform to the Lottie 1.0 schema"))
        }
        return problems
    }
}
