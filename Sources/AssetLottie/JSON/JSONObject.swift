/// A JSON object as its members in input order (duplicates kept).
///
/// Look-ups follow JavaScript and Python: the last member with a key wins.
public struct JSONObject: Sendable, Equatable {
    /// One `"key": value` pair.
    public struct Member: Sendable, Equatable {
        /// The member's key.
        public var key: String
        /// The member's value.
        public var value: JSONValue

        /// Creates a member.
        @inlinable
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in input order.
    public var members: [Member]

    /// Creates an object with `members`, in that order (duplicate keys allowed). Default: none.
    @inlinable
    public init(members: [Member] = []) {
        self.members = members
    }

    /// The number of members, duplicates included.
    @inlinable
    public var count: Int { members.count }

    /// `true` when there are no members.
    @inlinable
    public var isEmpty: Bool { members.isEmpty }

    /// The value of the last member named `key`.
    public subscript(key: String) -> JSONValue? {
        var index = members.count
        while index > 0 {
            index -= 1
            if members[index].key == key { return members[index].value }
        }
        return nil
    }

    /// Appends a member (an existing member with the same key is not removed).
    @inlinable
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    /// Appends a member when `value` is not `nil`.
    @inlinable
    public mutating func append(_ key: String, _ value: JSONValue?) {
        if let value { members.append(Member(key: key, value: value)) }
    }

    /// The members with earlier duplicates dropped (last wins), in the order of the survivors.
    public var uniqueMembers: [Member] {
        if members.count < 2 { return members }
        if !hasDuplicateKeys { return members }
        var seen = Set<String>()
        var result: [Member] = []
        for member in members.reversed() where seen.insert(member.key).inserted {
            result.append(member)
        }
        return result.reversed()
    }

    /// `true` when two members share a key (pairwise for small objects, hashing for large ones).
    public var hasDuplicateKeys: Bool {
        let count = members.count
        if count <= 16 {
            for later in 1..<max(1, count) {
                for earlier in 0..<later where members[earlier].key == members[later].key { return true }
            }
            return false
        }
        var seen = Set<String>()
        seen.reserveCapacity(count)
        for member in members where !seen.insert(member.key).inserted { return true }
        return false
    }
}
