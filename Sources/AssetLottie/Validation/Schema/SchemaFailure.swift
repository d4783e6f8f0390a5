/// One way an instance failed a schema node, as recorded while collecting: where, which op, and the
/// value that failed it. Messages are only built for the failures that are reported.
struct SchemaFailure: Sendable {
    /// One step of a JSON path.
    enum Segment: Sendable {
        case key(String)
        case index(Int)
    }

    enum Kind: Sendable {
        /// The local op `node.ops[op]` rejected `value`.
        case check
        /// The object `value` lacks the member named last in `path` (a `required` op).
        case missing
        /// No branch of the `oneOf`/`anyOf` at `node.ops[op]` admits `value`, and none comes close.
        case noneMatched
        /// Several branches of the `oneOf` at `node.ops[op]` admit `value` (the count).
        case manyMatched(Int)
        /// The `not` at `node.ops[op]` admits `value`.
        case negated
    }

    var path: [Segment]
    var node: Int
    var op: Int
    var kind: Kind
    var value: JSONValue

    /// `true` when the failure says the value is of another kind than the branch expects (a wrong type,
    /// constant or enumeration value, an excluded value, no matching alternative): used to tell which
    /// branch of a `oneOf` was meant.
    var isMismatch: Bool {
        switch kind {
        case .check:
            switch LottieSchema.nodes[node].ops[op] {
            case .type, .constant, .enumeration: return true
            default: return false
            }
        case .noneMatched, .negated: return true
        case .missing, .manyMatched: return false
        }
    }

    /// Of several failures at one path, the one reported has the lowest: a wrong type, then a value
    /// outside an enumeration or a union, then a wrong constant (`a: 2` is "one of 0, 1", not "must be 0").
    var reportPriority: Int {
        switch kind {
        case .check:
            switch LottieSchema.nodes[node].ops[op] {
            case .type: return 0
            case .enumeration: return 1
            case .constant: return 3
            default: return 4
            }
        case .noneMatched: return 2
        case .missing, .manyMatched, .negated: return 4
        }
    }

    /// `true` for a failed `type` op.
    var isTypeCheck: Bool {
        guard case .check = kind, case .type = LottieSchema.nodes[node].ops[op] else { return false }
        return true
    }

    /// The path as text: `$.layers[3].ks`.
    var pathText: String {
        var text = "$"
        for segment in path {
            switch segment {
            case .key(let key): text += JSONPath.member(key)
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}
