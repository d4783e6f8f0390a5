/// Exact powers of ten that a `Double` holds (10^0 ... 10^22), for Clinger's fast path.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

extension JSONParser {
    /// Reads a number per the JSON grammar: integers of up to 18 digits directly, doubles through
    /// Clinger's fast path (mantissa <= 2^53, power of ten within 10^±22, both exact, so one
    /// correctly rounded multiply or divide) and through the standard library's correctly rounded
    /// `Double(String)` for the rest. Non-finite results (`1e400`) are an error.
    mutating func parseNumber() throws(LottieError) -> JSONValue {
        let start = index
        var isNegative = false
        if base[index] == UInt8(ascii: "-") {
            isNegative = true
            index += 1
        }
        guard index < end, isDigit(base[index]) else { throw fail(.invalidNumber, "a digit must follow '-'") }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var isTruncated = false
        var isInteger = true
        if base[index] == UInt8(ascii: "0") {
            index += 1
            if index < end, isDigit(base[index]) { throw fail(.invalidNumber, "leading zeros are not allowed") }
        } else {
            while index < end, isDigit(base[index]) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(base[index] &- 0x30)
                    digits += 1
                } else {
                    exponent += 1
                    isTruncated = true
                }
                index += 1
            }
        }
        if index < end, base[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < end, isDigit(base[index]) else { throw fail(.invalidNumber, "a digit must follow '.'") }
            while index < end, isDigit(base[index]) {
                let digit = base[index] &- 0x30
                if mantissa == 0 && digit == 0 {
                    exponent -= 1
                } else if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    digits += 1
                    exponent -= 1
                } else {
                    isTruncated = true
                }
                index += 1
            }
        }
        if index < end, base[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var exponentIsNegative = false
            if index < end, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") {
                exponentIsNegative = base[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < end, isDigit(base[index]) else { throw fail(.invalidNumber, "a digit must follow the exponent") }
            var written = 0
            while index < end, isDigit(base[index]) {
                if written < 100_000 { written = written * 10 + Int(base[index] &- 0x30) }
                index += 1
            }
            exponent += exponentIsNegative ? -written : written
        }
        let length = index - start
        guard length <= limits.maxNumberLength else {
            throw LottieError.numberTooLong.with("number of \(length) characters (limit \(limits.maxNumberLength))",
                                                 offset: start)
        }
        if isInteger && !isTruncated && digits <= 18 {
            if isNegative { return mantissa == 0 ? .double(-0.0) : .int(-Int(mantissa)) }
            return .int(Int(mantissa))
        }
        if !isTruncated && mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            value = exponent < 0 ? value / exactPowersOfTen[-exponent] : value * exactPowersOfTen[exponent]
            return .double(isNegative ? -value : value)
        }
        return try slowDouble(start: start, count: length)
    }

    private func slowDouble(start: Int, count: Int) throws(LottieError) -> JSONValue {
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: count), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw LottieError.numberOutOfRange.with("number \(text.prefix(40)) does not fit a Double", offset: start)
        }
        return .double(value)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
}
