import Foundation
@testable import AssetLottie

/// An independent reading of JSON (Foundation's JSONSerialization), to check our parser against.
///
/// corelibs Foundation's JSONSerialization reads some doubles a few ulps off (it gives
/// 0.9803921568627454 for "0.9803921568627451"; Python and `Double(String)` agree with us), so
/// doubles are compared with a relative tolerance of 1e-14 here; exact rounding is tested in
/// JSONParserTests against `Double(String)`.
enum ReferenceJSON {
    case null, bool(Bool), int(Int64), double(Double), string(String)
    case array([ReferenceJSON]), object([String: ReferenceJSON])

    static func read(_ data: Data) throws -> ReferenceJSON {
        ReferenceJSON(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    init(_ any: Any) {
        switch any {
        case is NSNull: self = .null
        case let number as NSNumber:
            // corelibs Foundation reads true/false as NSNumber with objCType "c", numbers as "i"/"q"/"d".
            let type = String(cString: number.objCType)
            if type == "c" { self = .bool(number.boolValue) }
            else if type == "d" || type == "f" { self = .double(number.doubleValue) }
            else { self = .int(number.int64Value) }
        case let text as String: self = .string(text)
        case let list as [Any]: self = .array(list.map(ReferenceJSON.init))
        case let dictionary as [String: Any]: self = .object(dictionary.mapValues(ReferenceJSON.init))
        default: self = .string("unexpected \(type(of: any))")
        }
    }

    /// Our value, compared numerically for numbers and ignoring member order (last duplicate wins).
    func matches(_ value: JSONValue) -> Bool {
        var pending: [(ReferenceJSON, JSONValue)] = [(self, value)]
        while let (reference, ours) = pending.popLast() {
            switch (reference, ours) {
            case (.null, .null): continue
            case (.bool(let a), .bool(let b)): if a != b { return false }
            case (.string(let a), .string(let b)): if a != b { return false }
            case (.int(let a), _): if Double(a) != ours.doubleValue { return false }
            case (.double(let a), _):
                guard let b = ours.doubleValue, abs(a - b) <= 1e-14 * max(abs(a), abs(b)) else { return false }
            case (.array(let a), .array(let b)):
                guard a.count == b.count else { return false }
                pending += zip(a, b).map { ($0, $1) }
            case (.object(let a), .object(let b)):
                let members = b.uniqueMembers
                guard a.count == members.count else { return false }
                for member in members {
                    guard let match = a[member.key] else { return false }
                    pending.append((match, member.value))
                }
            default: return false
            }
        }
        return true
    }
}
