/// An ordered list of HTTP header fields with case-insensitive names.
///
/// The caching rules work on this small value instead of a transport type so that they stay pure and
/// testable. Field lines keep their order and duplicates; lookups ignore the case of names.
public struct HeaderFields: Sendable, Hashable {
    /// One field line.
    public struct Field: Sendable, Hashable {
        /// The field name as received.
        public var name: String
        /// The field value as received, without surrounding whitespace.
        public var value: String

        /// Creates a field line from a name and a value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The field lines, in order.
    public private(set) var fields: [Field]

    /// Creates an empty list.
    public init() {
        self.fields = []
    }

    /// Creates a list from `(name, value)` pairs, keeping their order and duplicates.
    public init(_ pairs: some Sequence<(String, String)>) {
        self.fields = pairs.map { Field(name: $0.0, value: Self.trimmed($0.1)) }
    }

    /// Whether the list holds no field line.
    public var isEmpty: Bool { self.fields.isEmpty }

    /// The number of field lines.
    public var count: Int { self.fields.count }

    /// Every value of the named field, one per field line, in order.
    public func values(for name: String) -> [String] {
        self.fields.compactMap { Self.namesMatch($0.name, name) ? $0.value : nil }
    }

    /// Whether at least one field line has this name.
    public func contains(_ name: String) -> Bool {
        self.fields.contains { Self.namesMatch($0.name, name) }
    }

    /// The first value of the named field, or nil.
    public subscript(name: String) -> String? {
        self.fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// All values of the named field combined into one, separated by ", " (RFC 9110 5.3), or nil.
    public func combinedValue(for name: String) -> String? {
        let values = self.values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The members of a list-based field across all its field lines, trimmed, empty members dropped.
    ///
    /// Commas inside quoted strings do not split members.
    public func listMembers(for name: String) -> [String] {
        self.values(for: name).flatMap { HeaderListSplitter.split($0) }
    }

    /// Appends one field line.
    public mutating func append(name: String, value: String) {
        self.fields.append(Field(name: name, value: Self.trimmed(value)))
    }

    /// Removes every field line with this name.
    public mutating func removeAll(named name: String) {
        self.fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// Replaces every field line with this name by one line holding `value`, placed where the first was.
    public mutating func replace(name: String, value: String) {
        if let index = self.fields.firstIndex(where: { Self.namesMatch($0.name, name) }) {
            self.fields[index] = Field(name: name, value: Self.trimmed(value))
            var next = index + 1
            while next < self.fields.count {
                if Self.namesMatch(self.fields[next].name, name) {
                    self.fields.remove(at: next)
                } else {
                    next += 1
                }
            }
        } else {
            self.append(name: name, value: value)
        }
    }

    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        return zip(lhs.utf8, rhs.utf8).allSatisfy { left, right in
            if left == right { return true }
            let lower = left | 0x20
            return lower == right | 0x20 && lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
        }
    }

    static func trimmed(_ value: String) -> String {
        var slice = Substring(value)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

extension HeaderFields: ExpressibleByDictionaryLiteral {
    /// Creates a list from a literal; repeated names are kept as separate field lines.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}

extension HeaderFields: Sequence {
    /// An iterator over the field lines, in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        self.fields.makeIterator()
    }
}
