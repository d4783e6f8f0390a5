/// `LottieSchema.nodes` in the form the evaluator runs: every op a trivially copyable `Op` (a kind and
/// three integers) whose operands sit in flat side tables, so that reading an op costs no reference
/// counting. Built once from the generated nodes; op `i` of node `n` here is op `i` of node `n` there
/// (failure messages are written from the generated `SchemaOp`s).
struct CompiledSchema: Sendable {
    enum Kind: UInt8, Sendable {
        case type, constant, enumeration, minimum, maximum, exclusiveMinimum, exclusiveMaximum
        case minItems, maxItems, pattern, required
        case ref, properties, additionalProperties, items, oneOf, anyOf, not, conditional
    }

    /// One op. `a`, `b`, `c` by kind: `type` (mask), `constant` (value), `enumeration` (values start, count),
    /// limits (number), `minItems`/`maxItems` (count), `pattern` (index), `required` (names start, count),
    /// `ref`/`not`/`items` (node), `properties` (entries start, count), `additionalProperties` (node,
    /// declared start, count), `oneOf`/`anyOf` (branches start, count), `conditional` (if, then, else; -1
    /// when absent). `inPlace`: every node it evaluates is local.
    struct Op: Sendable {
        var kind: Kind
        var inPlace: Bool
        var a: Int32
        var b: Int32 = 0
        var c: Int32 = 0
    }

    static let shared = CompiledSchema(LottieSchema.nodes)

    private(set) var ops: [Op] = []
    /// The ops of node `n` are `ops[opStart[n] ..< opStart[n + 1]]`.
    private(set) var opStart: [Int32] = [0]
    private(set) var isLocal: [Bool] = []
    private(set) var values: [JSONValue] = []
    private(set) var numbers: [Double] = []
    private(set) var names: [String] = []
    /// `properties` entries: the member name (in `names`) and the node, side by side.
    private(set) var entryNames: [String] = []
    private(set) var entryNodes: [Int32] = []
    private(set) var branches: [Int32] = []
    /// A member whose value decides the node at a glance: when the instance has member `guardNames[n]`
    /// and its value differs from `values[guardValues[n]]`, node `n` fails (one of its `properties`
    /// entries requires that constant). -1 when the node has none. Lets a union skip the branches that
    /// another `ty` names without evaluating them.
    private(set) var guardNames: [String] = []
    private(set) var guardValues: [Int32] = []

    init(_ nodes: [SchemaNode]) {
        isLocal = nodes.map(\.isLocal)
        for node in nodes {
            for op in node.ops { ops.append(compile(op, nodes: nodes)) }
            opStart.append(Int32(ops.count))
        }
        for node in nodes {
            var guardName = ""
            var guardValue: Int32 = -1
            search: for case .properties(let entries) in node.ops {
                for entry in entries {
                    for case .constant(let constant) in nodes[entry.node].ops {
                        guardName = entry.name
                        values.append(constant)
                        guardValue = Int32(values.count - 1)
                        break search
                    }
                }
            }
            guardNames.append(guardName)
            guardValues.append(guardValue)
        }
    }

    /// `true` when node `node`'s guard rules it out for `value` (see `guardNames`).
    func guardExcludes(_ node: Int, _ value: JSONValue) -> Bool {
        let constant = Int(guardValues[node])
        guard constant >= 0, case .object(let object) = value,
              let member = SchemaEvaluator.member(object, guardNames[node]) else { return false }
        return !SchemaEvaluator.equal(member, values[constant])
    }

    private mutating func compile(_ op: SchemaOp, nodes: [SchemaNode]) -> Op {
        let inPlace = op.runsInPlace(nodes)
        func number(_ kind: Kind, _ value: Double) -> Op {
            numbers.append(value)
            return Op(kind: kind, inPlace: true, a: Int32(numbers.count - 1))
        }
        func list(_ kind: Kind, _ targets: [Int]) -> Op {
            branches += targets.map(Int32.init)
            return Op(kind: kind, inPlace: inPlace, a: Int32(branches.count - targets.count), b: Int32(targets.count))
        }
        switch op {
        case .type(let types): return Op(kind: .type, inPlace: true, a: Int32(types.rawValue))
        case .constant(let value):
            values.append(value)
            return Op(kind: .constant, inPlace: true, a: Int32(values.count - 1))
        case .enumeration(let list):
            values += list
            return Op(kind: .enumeration, inPlace: true, a: Int32(values.count - list.count), b: Int32(list.count))
        case .minimum(let limit): return number(.minimum, limit)
        case .maximum(let limit): return number(.maximum, limit)
        case .exclusiveMinimum(let limit): return number(.exclusiveMinimum, limit)
        case .exclusiveMaximum(let limit): return number(.exclusiveMaximum, limit)
        case .minItems(let count): return Op(kind: .minItems, inPlace: true, a: Int32(count))
        case .maxItems(let count): return Op(kind: .maxItems, inPlace: true, a: Int32(count))
        case .pattern(let index): return Op(kind: .pattern, inPlace: true, a: Int32(index))
        case .required(let required):
            names += required
            return Op(kind: .required, inPlace: true, a: Int32(names.count - required.count), b: Int32(required.count))
        case .ref(let target): return Op(kind: .ref, inPlace: inPlace, a: Int32(target))
        case .not(let target): return Op(kind: .not, inPlace: inPlace, a: Int32(target))
        case .items(let target): return Op(kind: .items, inPlace: inPlace, a: Int32(target))
        case .properties(let entries):
            entryNames += entries.map(\.name)
            entryNodes += entries.map { Int32($0.node) }
            return Op(kind: .properties, inPlace: inPlace, a: Int32(entryNames.count - entries.count), b: Int32(entries.count))
        case .additionalProperties(let target, let declared):
            names += declared
            return Op(kind: .additionalProperties, inPlace: inPlace, a: Int32(target),
                      b: Int32(names.count - declared.count), c: Int32(declared.count))
        case .oneOf(let targets): return list(.oneOf, targets)
        case .anyOf(let targets): return list(.anyOf, targets)
        case .conditional(let condition, let then, let otherwise):
            return Op(kind: .conditional, inPlace: inPlace, a: Int32(condition), b: Int32(then ?? -1), c: Int32(otherwise ?? -1))
        }
    }
}
