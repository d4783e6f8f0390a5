extension JSONParser {
    /// Reads a string; `index` is at its opening quote and ends after its closing quote.
    mutating func parseString() throws(LottieError) -> String {
        index += 1
        let start = index
        var isASCII = true
        // Eight bytes at a time while none is a quote, a backslash or a control character
        // (long strings, such as embedded images, are common in Lottie files).
        while end - index >= 8 {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            if special & highs != 0 { break }
            if word & highs != 0 { isASCII = false }
            index += 8
        }
        while index < end {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                let count = index - start
                guard count <= limits.maxStringBytes else {
                    throw fail(.stringTooLong, "string of \(count) bytes (limit \(limits.maxStringBytes))")
                }
                index += 1
                return try makeString(start: start, count: count, isASCII: isASCII)
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(start: start) }
            if byte < 0x20 { throw fail(.invalidString, "control character in a string") }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        throw fail(.unexpectedEnd, "input ends inside a string")
    }

    @inline(__always)
    private func makeString(start: Int, count: Int, isASCII: Bool) throws(LottieError) -> String {
        let source = base + start
        if isASCII {
            // Short ASCII strings (most keys) fit Swift's inline small-string form.
            if count <= 15 { return String(decoding: UnsafeBufferPointer(start: source, count: count), as: UTF8.self) }
            return String(unsafeUninitializedCapacity: count) { buffer in
                buffer.baseAddress!.initialize(from: source, count: count)
                return count
            }
        }
        guard let string = String(validating: UnsafeBufferPointer(start: source, count: count), as: UTF8.self) else {
            throw LottieError.invalidUTF8.with("string is not valid UTF-8", offset: start)
        }
        return string
    }

    /// The slow path: a string with escapes, decoded into a byte buffer and validated as UTF-8.
    private mutating func parseEscapedString(start: Int) throws(LottieError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(index - start + 16)
        bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: index - start))
        while index < end {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let string = String(validating: bytes, as: UTF8.self) else {
                    throw LottieError.invalidUTF8.with("string is not valid UTF-8", offset: start)
                }
                return string
            }
            if bytes.count > limits.maxStringBytes {
                throw fail(.stringTooLong, "string longer than \(limits.maxStringBytes) bytes")
            }
            if byte < 0x20 { throw fail(.invalidString, "control character in a string") }
            if byte != UInt8(ascii: "\\") {
                bytes.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < end else { break }
            let escape = base[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): bytes.append(0x22)
            case UInt8(ascii: "\\"): bytes.append(0x5C)
            case UInt8(ascii: "/"): bytes.append(0x2F)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"): appendScalar(try parseUnicodeEscape(), to: &bytes)
            default:
                index -= 1
                throw fail(.invalidString, "invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
            }
        }
        throw fail(.unexpectedEnd, "input ends inside a string")
    }

    /// After `\u`: four hex digits, joined with a following `\uDC00-DFFF` when they are a high surrogate.
    /// A lone surrogate (valid JSON, not valid Unicode) becomes U+FFFD, as in `String(decoding:)`.
    private mutating func parseUnicodeEscape() throws(LottieError) -> Unicode.Scalar {
        let unit = try readHex4()
        if unit >= 0xD800 && unit <= 0xDBFF {
            if end - index >= 6, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u") {
                let save = index
                index += 2
                let low = try readHex4()
                if low >= 0xDC00 && low <= 0xDFFF {
                    let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    return Unicode.Scalar(value) ?? "\u{FFFD}"
                }
                index = save
            }
            return "\u{FFFD}"
        }
        return Unicode.Scalar(UInt32(unit)) ?? "\u{FFFD}"
    }

    private mutating func readHex4() throws(LottieError) -> UInt16 {
        guard end - index >= 4 else { throw fail(.unexpectedEnd, "input ends inside a \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = base[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- 0x57
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- 0x37
            default: throw fail(.invalidString, "invalid hex digit in a \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func appendScalar(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
        for unit in UTF8.encode(scalar)! { bytes.append(unit) }
    }
}
