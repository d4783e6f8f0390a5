/// A JSON value kept losslessly: member order, duplicate keys and the int/double split survive.
///
/// Integers that fit in `Int` (at most 18 digits, no fraction or exponent) are `.int`; every other
/// number is a finite `.double`. `-0` is kept as `.double(-0.0)` so that its sign survives.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written as an integer of at most 18 digits (no fraction, no exponent), except `-0`.
    case int(Int)
    /// Any other number (always finite), `-0` included, with its sign.
    case double(Double)
    /// A string, with its escapes decoded.
    case string(String)
    /// An array, its elements in order.
    case array([JSONValue])
    /// An object, its members in order, duplicates kept.
    case object(JSONObject)

    /// The number as a `Double`, for `.int` and `.double`; `nil` otherwise.
    @inlinable
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The number as an `Int` when it is integral and fits; `nil` otherwise.
    @inlinable
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value):
            guard value.isFinite, value.rounded() == value, abs(value) < 9.0e18 else { return nil }
            return Int(value)
        default: return nil
        }
    }

    /// The string, for `.string`; `nil` otherwise.
    @inlinable
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The array, for `.array`; `nil` otherwise.
    @inlinable
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, for `.object`; `nil` otherwise.
    @inlinable
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements as objects, for an `.array` whose elements are all objects; `nil` otherwise
    /// (callers then keep the value untyped, so that nothing is lost).
    var objectElements: [JSONObject]? {
        guard case .array(let elements) = self else { return nil }
        var objects: [JSONObject] = []
        objects.reserveCapacity(elements.count)
        for element in elements {
            guard case .object(let object) = element else { return nil }
            objects.append(object)
        }
        return objects
    }

    /// `true`/`false` for `.bool`, and for the numbers 0 and 1 (Lottie writes flags both ways).
    public var flagValue: Bool? {
        switch self {
        case .bool(let value): return value
        case .int(0): return false
        case .int(1): return true
        default: return nil
        }
    }
}
