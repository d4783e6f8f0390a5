/// One check of a compiled schema node: a JSON Schema keyword with its operands resolved.
///
/// The local ops look at the instance alone; `ref`, `properties`, `additionalProperties`, `items` and
/// the combinators evaluate other nodes (by index into `LottieSchema.nodes`), against the same instance
/// or against its members and elements. `scripts/gen-lottie-schema` writes them; nothing else does.
enum SchemaOp: Sendable {
    /// One entry of `properties`: a member name and the node its value must satisfy.
    struct Property: Sendable {
        let name: String
        let node: Int

        init(_ name: String, _ node: Int) {
            self.name = name
            self.node = node
        }
    }

    case type(JSONTypeSet)
    case constant(JSONValue)
    case enumeration([JSONValue])
    case minimum(Double)
    case maximum(Double)
    case exclusiveMinimum(Double)
    case exclusiveMaximum(Double)
    case minItems(Int)
    case maxItems(Int)
    /// An index into `LottieSchema.patterns`.
    case pattern(Int)
    case required([String])
    /// `$ref`, and each entry of `allOf`: the same instance against another node.
    case ref(Int)
    case properties([Property])
    /// Members not named in the sibling `properties` (`declared`) against one node.
    case additionalProperties(Int, declared: [String])
    case items(Int)
    case oneOf([Int])
    case anyOf([Int])
    case not(Int)
    /// `if` / `then` / `else`.
    case conditional(Int, then: Int?, else: Int?)

    /// `true` when the op can run in place on `nodes`: every node it evaluates, against the instance
    /// or its members and elements, is local.
    func runsInPlace(_ nodes: [SchemaNode]) -> Bool {
        switch self {
        case .type, .constant, .enumeration, .minimum, .maximum, .exclusiveMinimum, .exclusiveMaximum,
             .minItems, .maxItems, .pattern, .required:
            return true
        case .properties(let entries):
            return entries.allSatisfy { nodes[$0.node].isLocal }
        case .ref(let target), .not(let target), .items(let target), .additionalProperties(let target, _):
            return nodes[target].isLocal
        case .oneOf(let branches), .anyOf(let branches):
            return branches.allSatisfy { nodes[$0].isLocal }
        case .conditional(let condition, let then, let otherwise):
            return nodes[condition].isLocal && (then.map { nodes[$0].isLocal } ?? true)
                && (otherwise.map { nodes[$0].isLocal } ?? true)
        }
    }
}
