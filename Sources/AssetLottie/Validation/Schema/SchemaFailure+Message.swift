extension SchemaFailure {
    /// What is wrong, for people: `must be one of 0, 1 (found 2)`.
    var message: String {
        let ops = LottieSchema.nodes[node].ops
        switch kind {
        case .missing:
            return "required property is missing"
        case .noneMatched:
            return "\(Self.describe(value)) matches none of: \(Self.branchLabels(ops[op]))"
        case .manyMatched(let count):
            return "matches \(count) of: \(Self.branchLabels(ops[op])) (exactly one allowed)"
        case .negated:
            guard case .not(let excluded) = ops[op] else { return "matches an excluded schema" }
            return "must not be \(LottieSchema.nodes[excluded].label) (found \(Self.describe(value)))"
        case .check:
            return checkMessage(ops[op])
        }
    }

    private func checkMessage(_ op: SchemaOp) -> String {
        let found = Self.describe(value)
        switch op {
        case .type(let types): return "expected \(types) (found \(found))"
        case .constant(let constant): return "must be \(Self.describe(constant)) (found \(found))"
        case .enumeration(let values):
            return "must be one of \(values.map(Self.describe).joined(separator: ", ")) (found \(found))"
        case .minimum(let limit): return "must be >= \(Self.number(limit)) (found \(found))"
        case .maximum(let limit): return "must be <= \(Self.number(limit)) (found \(found))"
        case .exclusiveMinimum(let limit): return "must be > \(Self.number(limit)) (found \(found))"
        case .exclusiveMaximum(let limit): return "must be < \(Self.number(limit)) (found \(found))"
        case .minItems(let count): return "must have at least \(count) item(s) (found \(found))"
        case .maxItems(let count): return "must have at most \(count) item(s) (found \(found))"
        case .pattern(let index): return "must match \(LottieSchema.patterns[index].source) (found \(found))"
        case .required: return "required property is missing"
        case .ref, .properties, .additionalProperties, .items, .oneOf, .anyOf, .not, .conditional:
            return "does not match \(LottieSchema.nodes[node].label)"
        }
    }

    private static func branchLabels(_ op: SchemaOp) -> String {
        switch op {
        case .oneOf(let branches), .anyOf(let branches):
            return branches.map { LottieSchema.nodes[$0].label }.joined(separator: ", ")
        default:
            return "the alternatives"
        }
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : value.description
    }

    /// A short description of a value: numbers and short strings as written, containers by size.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return number.description
        case .string(let text):
            var quoted = "\""
            for (position, scalar) in text.unicodeScalars.enumerated() {
                if position == 37 && text.unicodeScalars.count > 40 { quoted += "..."; break }
                if scalar == "\"" || scalar == "\\" { quoted += "\\" }
                quoted.unicodeScalars.append(scalar)
            }
            return quoted + "\""
        case .array(let elements): return "an array of \(elements.count) item(s)"
        case .object(let object): return "an object of \(object.count) member(s)"
        }
    }
}
