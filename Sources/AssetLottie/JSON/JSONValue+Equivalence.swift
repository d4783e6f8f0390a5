extension JSONValue {
    /// `true` when both values mean the same JSON document as Python's `json` module reads it:
    /// object member order ignored, the last of duplicate keys wins, numbers compared numerically.
    /// Iterative, so it handles any depth the parser accepts.
    public func isEquivalent(to other: JSONValue) -> Bool {
        var pending: [(JSONValue, JSONValue)] = [(self, other)]
        while let (left, right) = pending.popLast() {
            switch (left, right) {
            case (.null, .null): continue
            case (.bool(let a), .bool(let b)): if a != b { return false }
            case (.string(let a), .string(let b)): if a != b { return false }
            case (.int(let a), .int(let b)): if a != b { return false }
            case (.int, .double), (.double, .int), (.double, .double):
                if left.doubleValue != right.doubleValue { return false }
            case (.array(let a), .array(let b)):
                guard a.count == b.count else { return false }
                for position in a.indices { pending.append((a[position], b[position])) }
            case (.object(let a), .object(let b)):
                let leftMembers = a.uniqueMembers
                let rightMembers = b.uniqueMembers
                guard leftMembers.count == rightMembers.count else { return false }
                var lookup: [String: JSONValue] = [:]
                lookup.reserveCapacity(rightMembers.count)
                for member in rightMembers { lookup[member.key] = member.value }
                for member in leftMembers {
                    guard let match = lookup[member.key] else { return false }
                    pending.append((member.value, match))
                }
            default:
                return false
            }
        }
        return true
    }
}
