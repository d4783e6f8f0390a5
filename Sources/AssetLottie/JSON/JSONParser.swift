/// A byte-level, iterative JSON parser (RFC 8259) into `JSONValue`.
///
/// No recursion: open containers live on an explicit frame stack bounded by `maxDepth`, so hostile
/// nesting ends in `LottieError.depthLimitExceeded`, never in a stack overflow. Values under
/// construction sit on one flat value stack and are moved into their container when it closes.
struct JSONParser {
    struct Limits: Sendable {
        var maxDepth: Int
        var maxStringBytes: Int
        var maxNumberLength: Int
    }

    private struct Frame {
        var isObject: Bool
        var valueStart: Int
        var keyStart: Int
    }

    let base: UnsafePointer<UInt8>
    let end: Int
    let limits: Limits
    var index = 0
    /// Values of the open containers, moved (not copied) into their container when it closes.
    private var values = MoveStack<JSONValue>()
    /// Keys of the open objects, one per value of an object frame.
    private var keys = MoveStack<String>()
    private var frames: [Frame] = []

    init(base: UnsafePointer<UInt8>, count: Int, limits: Limits) {
        self.base = base
        self.end = count
        self.limits = limits
        frames.reserveCapacity(32)
    }

    /// Releases whatever an error left on the stacks.
    mutating func release() {
        values.release()
        keys.release()
    }

    /// Parses `bytes` as one JSON document.
    static func parse(_ bytes: UnsafeRawBufferPointer, limits: Limits) throws(LottieError) -> JSONValue {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw LottieError.unexpectedEnd.with("empty input", offset: 0, path: "$")
        }
        var parser = JSONParser(base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, limits: limits)
        defer { parser.release() }
        return try parser.parseDocument()
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < end {
            let byte = base[index]
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                index += 1
            } else {
                return
            }
        }
    }

    mutating func parseDocument() throws(LottieError) -> JSONValue {
        // A UTF-8 byte order mark is tolerated at the very start, as most players do.
        if end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { index = 3 }
        while true {
            // Expecting a value.
            skipWhitespace()
            guard index < end else { throw fail(.unexpectedEnd, "input ends where a value was expected") }
            let value: JSONValue
            switch base[index] {
            case UInt8(ascii: "{"):
                try push(isObject: true)
                index += 1
                skipWhitespace()
                if index < end, base[index] == UInt8(ascii: "}") {
                    index += 1
                    frames.removeLast()
                    value = .object(JSONObject())
                } else {
                    try parseKeyAndColon()
                    continue
                }
            case UInt8(ascii: "["):
                try push(isObject: false)
                index += 1
                skipWhitespace()
                if index < end, base[index] == UInt8(ascii: "]") {
                    index += 1
                    frames.removeLast()
                    value = .array([])
                } else {
                    continue
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try parseNumber()
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            default:
                throw fail(.unexpectedCharacter, "unexpected byte 0x\(String(base[index], radix: 16)) where a value was expected")
            }
            values.push(value)
            // After a value: close containers, or move to the next element.
            while true {
                guard let frame = frames.last else {
                    skipWhitespace()
                    guard index == end else { throw fail(.trailingData, "data after the top-level value") }
                    return values.pop()
                }
                skipWhitespace()
                guard index < end else { throw fail(.unexpectedEnd, "input ends inside a container") }
                let byte = base[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    if frame.isObject {
                        skipWhitespace()
                        try parseKeyAndColon()
                    }
                    break
                }
                if frame.isObject ? byte == UInt8(ascii: "}") : byte == UInt8(ascii: "]") {
                    index += 1
                    closeTopFrame()
                    continue
                }
                throw fail(.unexpectedCharacter, frame.isObject ? "expected ',' or '}'" : "expected ',' or ']'")
            }
        }
    }

    @inline(__always)
    private mutating func push(isObject: Bool) throws(LottieError) {
        guard frames.count < limits.maxDepth else {
            throw fail(.depthLimitExceeded, "nesting deeper than \(limits.maxDepth) levels")
        }
        frames.append(Frame(isObject: isObject, valueStart: values.count, keyStart: keys.count))
    }

    private mutating func closeTopFrame() {
        let frame = frames.removeLast()
        if frame.isObject {
            let count = values.count - frame.valueStart
            let valueBase = values.base + frame.valueStart
            let keyBase = keys.base + frame.keyStart
            let members = [JSONObject.Member](unsafeUninitializedCapacity: count) { buffer, initialized in
                for offset in 0..<count {
                    (buffer.baseAddress! + offset).initialize(
                        to: JSONObject.Member(key: (keyBase + offset).move(), value: (valueBase + offset).move()))
                }
                initialized = count
            }
            keys.forgetMoved(downTo: frame.keyStart)
            values.forgetMoved(downTo: frame.valueStart)
            values.push(.object(JSONObject(members: members)))
        } else {
            values.push(.array(values.moveOut(from: frame.valueStart)))
        }
    }

    private mutating func parseKeyAndColon() throws(LottieError) {
        guard index < end else { throw fail(.unexpectedEnd, "input ends where a key was expected") }
        guard base[index] == UInt8(ascii: "\"") else { throw fail(.unexpectedCharacter, "expected a string key") }
        keys.push(try parseString())
        skipWhitespace()
        guard index < end else { throw fail(.unexpectedEnd, "input ends where ':' was expected") }
        guard base[index] == UInt8(ascii: ":") else { throw fail(.unexpectedCharacter, "expected ':'") }
        index += 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(LottieError) {
        let count = literal.utf8CodeUnitCount
        guard end - index >= count else { throw fail(.unexpectedEnd, "input ends inside a literal") }
        let text = literal.utf8Start
        for offset in 0..<count where base[index + offset] != text[offset] {
            index += offset
            throw fail(.unexpectedCharacter, "invalid literal")
        }
        index += count
    }

    /// An error of `kind` at the current offset, with the JSON path of the value being read.
    func fail(_ kind: LottieError, _ message: String) -> LottieError {
        kind.with(message, offset: index, path: currentPath())
    }

    private func currentPath() -> String {
        var path = "$"
        for (position, frame) in frames.enumerated() {
            let nextValueStart = position + 1 < frames.count ? frames[position + 1].valueStart : values.count
            if frame.isObject {
                let nextKeyStart = position + 1 < frames.count ? frames[position + 1].keyStart : keys.count
                let keyCount = nextKeyStart - frame.keyStart
                let valueCount = nextValueStart - frame.valueStart
                if keyCount > valueCount, nextKeyStart > 0 {
                    path += JSONPath.member(keys[nextKeyStart - 1])
                }
            } else {
                path += "[\(nextValueStart - frame.valueStart)]"
            }
            if path.utf8.count > 2_000 { return path + "..." }
        }
        return path
    }
}
