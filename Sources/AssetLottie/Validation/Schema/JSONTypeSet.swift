/// The JSON types a schema's `type` keyword names.
///
/// As in JSON Schema 2020-12, `integer` admits any number with a zero fractional part (`2.0` too),
/// and `number` admits every number; booleans are never numbers.
struct JSONTypeSet: OptionSet, Sendable, CustomStringConvertible {
    let rawValue: UInt8

    static let null = JSONTypeSet(rawValue: 1 << 0)
    static let boolean = JSONTypeSet(rawValue: 1 << 1)
    static let object = JSONTypeSet(rawValue: 1 << 2)
    static let array = JSONTypeSet(rawValue: 1 << 3)
    static let number = JSONTypeSet(rawValue: 1 << 4)
    static let string = JSONTypeSet(rawValue: 1 << 5)
    static let integer = JSONTypeSet(rawValue: 1 << 6)

    /// `true` when `value` has one of the types.
    @inline(__always)
    func admits(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return contains(.null)
        case .bool: return contains(.boolean)
        case .object: return contains(.object)
        case .array: return contains(.array)
        case .string: return contains(.string)
        case .int: return !isDisjoint(with: [.number, .integer])
        case .double(let number): return contains(.number) || (contains(.integer) && number.rounded() == number)
        }
    }

    var description: String {
        let names: [(JSONTypeSet, String)] = [(.null, "null"), (.boolean, "boolean"), (.object, "object"),
                                              (.array, "array"), (.number, "number"), (.string, "string"),
                                              (.integer, "integer")]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: " or ")
    }
}
