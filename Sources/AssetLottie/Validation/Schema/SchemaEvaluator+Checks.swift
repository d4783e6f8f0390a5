extension SchemaEvaluator {
    /// Runs one local op (`op` is `LottieSchema.nodes[node].ops[index]`) on `value`; records what fails.
    /// Keywords that do not apply to the value's type pass, as JSON Schema says.
    mutating func checkLocalOp(_ op: SchemaOp, index: Int, node: Int, _ value: JSONValue,
                               extra: SchemaFailure.Segment?) -> Bool {
        let passes: Bool
        switch op {
        case .type(let types):
            passes = types.admits(value)
        case .constant(let constant):
            passes = Self.equal(value, constant)
        case .enumeration(let values):
            passes = values.contains { Self.equal(value, $0) }
        case .minimum(let limit):
            passes = value.doubleValue.map { $0 >= limit } ?? true
        case .maximum(let limit):
            passes = value.doubleValue.map { $0 <= limit } ?? true
        case .exclusiveMinimum(let limit):
            passes = value.doubleValue.map { $0 > limit } ?? true
        case .exclusiveMaximum(let limit):
            passes = value.doubleValue.map { $0 < limit } ?? true
        case .minItems(let count):
            passes = value.arrayValue.map { $0.count >= count } ?? true
        case .maxItems(let count):
            passes = value.arrayValue.map { $0.count <= count } ?? true
        case .pattern(let pattern):
            passes = value.stringValue.map { LottieSchema.patterns[pattern].matches($0) } ?? true
        case .required(let names):
            guard case .object(let object) = value else { return true }
            var complete = true
            for name in names where object[name] == nil {
                complete = false
                guard collecting else { return false }
                var at = extra.map { [$0] } ?? []
                at.append(.key(name))
                recordMissing(node: node, op: index, object: value, at: at)
            }
            return complete
        case .ref, .properties, .additionalProperties, .items, .oneOf, .anyOf, .not, .conditional:
            return true
        }
        if !passes { record(.check, node: node, op: index, value: value, extra: extra) }
        return passes
    }

    private mutating func recordMissing(node: Int, op: Int, object: JSONValue, at steps: [SchemaFailure.Segment]) {
        // `record` appends one step; a member of a member needs two.
        if steps.count == 1 {
            record(.missing, node: node, op: op, value: object, extra: steps[0])
        } else {
            path.append(steps[0])
            record(.missing, node: node, op: op, value: object, extra: steps[1])
            path.removeLast()
        }
    }

    /// JSON Schema equality: numbers by value (`1 == 1.0`), booleans never equal to numbers, containers
    /// member by member.
    static func equal(_ value: JSONValue, _ expected: JSONValue) -> Bool {
        switch (value, expected) {
        case (.int(let a), .int(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        case (.int, .double), (.double, .int), (.double, .double): return value.doubleValue == expected.doubleValue
        case (.array, .array), (.object, .object): return value.isEquivalent(to: expected)
        default: return false
        }
    }
}
