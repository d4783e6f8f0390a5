extension SchemaEvaluator {
    /// Checks `value` against a local node, in place. `extra` is the path step from the current frame's
    /// instance to `value`, when they differ. Recursive, but only as deep as the schema below a local
    /// node goes (none reaches itself again: the generator checks), never as deep as the document.
    mutating func checkLocal(_ value: JSONValue, node: Int, extra: SchemaFailure.Segment?) -> Bool {
        var valid = true
        let start = Int(schema.opStart[node])
        for position in start..<Int(schema.opStart[node + 1])
        where !checkInPlace(schema.ops[position], index: position - start, node: node, value, extra: extra) {
            valid = false
            if !collecting { return false }
        }
        return valid
    }

    /// Runs one op that runs in place (op `index` of `node`) on `value`; records what fails. Keywords
    /// that do not apply to the value's type pass, as JSON Schema says.
    mutating func checkInPlace(_ op: CompiledSchema.Op, index: Int, node: Int, _ value: JSONValue,
                               extra: SchemaFailure.Segment?) -> Bool {
        let passes: Bool
        switch op.kind {
        case .type:
            passes = JSONTypeSet(rawValue: UInt8(op.a)).admits(value)
        case .constant:
            passes = Self.equal(value, schema.values[Int(op.a)])
        case .enumeration:
            passes = schema.values[Int(op.a)..<Int(op.a + op.b)].contains { Self.equal(value, $0) }
        case .minimum:
            passes = value.doubleValue.map { $0 >= schema.numbers[Int(op.a)] } ?? true
        case .maximum:
            passes = value.doubleValue.map { $0 <= schema.numbers[Int(op.a)] } ?? true
        case .exclusiveMinimum:
            passes = value.doubleValue.map { $0 > schema.numbers[Int(op.a)] } ?? true
        case .exclusiveMaximum:
            passes = value.doubleValue.map { $0 < schema.numbers[Int(op.a)] } ?? true
        case .minItems:
            passes = value.arrayValue.map { $0.count >= Int(op.a) } ?? true
        case .maxItems:
            passes = value.arrayValue.map { $0.count <= Int(op.a) } ?? true
        case .pattern:
            passes = value.stringValue.map { LottieSchema.patterns[Int(op.a)].matches($0) } ?? true
        case .required:
            guard case .object(let object) = value else { return true }
            var complete = true
            for name in schema.names[Int(op.a)..<Int(op.a + op.b)] where Self.member(object, name) == nil {
                complete = false
                guard collecting else { return false }
                recordMissing(name, node: node, op: index, object: value, extra: extra)
            }
            return complete
        case .ref:
            return checkLocal(value, node: Int(op.a), extra: extra)
        case .oneOf, .anyOf:
            return checkUnionInPlace(op, node: node, index: index, value, extra: extra)
        case .not:
            let admitted = checking { $0.checkLocal(value, node: Int(op.a), extra: extra) }
            if admitted { record(.negated, node: node, op: index, value: value, extra: extra) }
            checkBudget()
            return !admitted
        case .conditional:
            let held = checking { $0.checkLocal(value, node: Int(op.a), extra: extra) }
            let target = Int(held ? op.b : op.c)
            return target < 0 || checkLocal(value, node: target, extra: extra)
        case .properties, .additionalProperties, .items:
            return checkMembersInPlace(op, value, extra: extra)
        }
        if !passes { record(.check, node: node, op: index, value: value, extra: extra) }
        return passes
    }

    /// `properties`, `additionalProperties` and `items` of a local node: each member or element against
    /// its (local) node, with `extra` on the path meanwhile.
    private mutating func checkMembersInPlace(_ op: CompiledSchema.Op, _ value: JSONValue,
                                              extra: SchemaFailure.Segment?) -> Bool {
        if let extra { path.append(extra) }
        defer { if extra != nil { path.removeLast() } }
        var valid = true
        switch (op.kind, value) {
        case (.properties, .object(let object)):
            for entry in Int(op.a)..<Int(op.a + op.b) {
                let name = schema.entryNames[entry]
                guard let member = Self.member(object, name) else { continue }
                evidence += 1
                if !checkLocal(member, node: Int(schema.entryNodes[entry]), extra: .key(name)) {
                    valid = false
                    if !collecting { return false }
                }
            }
        case (.additionalProperties, .object(let object)):
            let declared = schema.names[Int(op.b)..<Int(op.b + op.c)]
            let members = object.hasDuplicateKeys ? object.uniqueMembers : object.members
            for member in members where !declared.contains(member.key) {
                if !checkLocal(member.value, node: Int(op.a), extra: .key(member.key)) {
                    valid = false
                    if !collecting { return false }
                }
            }
        case (.items, .array(let elements)):
            for (position, element) in elements.enumerated()
            where !checkLocal(element, node: Int(op.a), extra: .index(position)) {
                valid = false
                if !collecting { return false }
            }
        default:
            break
        }
        return valid
    }

    /// Records that `object` (at the current path plus `extra`) lacks member `name`.
    private mutating func recordMissing(_ name: String, node: Int, op: Int, object: JSONValue,
                                       extra: SchemaFailure.Segment?) {
        // `record` appends one step; the member of a member needs two.
        guard let extra else { return record(.missing, node: node, op: op, value: object, extra: .key(name)) }
        path.append(extra)
        record(.missing, node: node, op: op, value: object, extra: .key(name))
        path.removeLast()
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
