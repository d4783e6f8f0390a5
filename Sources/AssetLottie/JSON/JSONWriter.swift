/// Writes `JSONValue`s as compact UTF-8 JSON.
///
/// Iterative like the parser, so any value the parser accepted can be written back. Doubles always
/// read back as doubles (`30.0`, `1e+16`), so `.int` and `.double` survive a round trip; non-finite
/// doubles (which the parser never produces) are written as `null`.
///
/// With ``integralNumbersAsIntegers``, a double with an integral value is written as an integer
/// instead (`30`, not `30.0`): for readers that take some members only as integers (rlottie reads
/// `w`, `h`, `ty`, `ind` and `parent` so).
public struct JSONWriter: Sendable {
    private enum Step {
        case value(JSONValue)
        case raw(UInt8)
        case key(String)
    }

    /// Write doubles with an integral value of magnitude below 2^53 as integers. Default false.
    public var integralNumbersAsIntegers: Bool

    /// Creates a writer; by default doubles stay doubles.
    public init(integralNumbersAsIntegers: Bool = false) {
        self.integralNumbersAsIntegers = integralNumbersAsIntegers
    }

    /// `value` as JSON bytes.
    public func write(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        var steps: [Step] = [.value(value)]
        while let step = steps.popLast() {
            switch step {
            case .raw(let byte):
                output.append(byte)
            case .key(let key):
                writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
            case .value(let value):
                switch value {
                case .null: output.append(contentsOf: "null".utf8)
                case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
                case .int(let number): output.append(contentsOf: String(number).utf8)
                case .double(let number): writeDouble(number, to: &output)
                case .string(let text): writeString(text, to: &output)
                case .array(let elements):
                    output.append(UInt8(ascii: "["))
                    steps.append(.raw(UInt8(ascii: "]")))
                    for (position, element) in elements.enumerated().reversed() {
                        steps.append(.value(element))
                        if position > 0 { steps.append(.raw(UInt8(ascii: ","))) }
                    }
                case .object(let object):
                    output.append(UInt8(ascii: "{"))
                    steps.append(.raw(UInt8(ascii: "}")))
                    for (position, member) in object.members.enumerated().reversed() {
                        steps.append(.value(member.value))
                        steps.append(.key(member.key))
                        if position > 0 { steps.append(.raw(UInt8(ascii: ","))) }
                    }
                }
            }
        }
        return output
    }

    private func writeDouble(_ number: Double, to output: inout [UInt8]) {
        guard number.isFinite else {
            output.append(contentsOf: "null".utf8)
            return
        }
        if integralNumbersAsIntegers, number.rounded(.towardZero) == number, abs(number) < 9_007_199_254_740_992 {
            output.append(contentsOf: String(Int64(number)).utf8)
            return
        }
        output.append(contentsOf: number.description.utf8)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Self.hexDigits
                output.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
