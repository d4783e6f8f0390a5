import Foundation
import Testing
@testable import AssetLottie

/// The JSON parser on inputs beyond the corpus: escapes, UTF-8, numbers, limits, hostile shapes.
struct JSONParserTests {
    let parser = LottieParser()

    func parse(_ text: String) throws(LottieError) -> JSONValue {
        try parser.parseJSON(Array(text.utf8))
    }

    @Test func unicodeEscapesAndSurrogatePairs() throws {
        #expect(try parse(#""caf\u00e9 \u20AC \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t""#)
                == .string("café € 😀 \"q\" \\ / \u{8}\u{c}\n\r\t"))
        // Raw multi-byte UTF-8 passes through.
        #expect(try parse("\"héllo ✓ 😀\"") == .string("héllo ✓ 😀"))
        // A lone surrogate is valid JSON but not Unicode: replaced by U+FFFD, not a crash.
        #expect(try parse(#""a\ud800b""#) == .string("a\u{FFFD}b"))
        #expect(try parse(#""\udc00""#) == .string("\u{FFFD}"))
        #expect(try parse(#""\ud83d\u0041""#) == .string("\u{FFFD}A"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test func invalidStringsAreTypedErrors() {
        #expect(throws: LottieError.invalidUTF8) { try parser.parseJSON([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: LottieError.invalidUTF8) { try parser.parseJSON([0x22, 0xFF, 0x22]) }
        #expect(throws: LottieError.invalidUTF8) { try parser.parseJSON([0x22, 0x5C, 0x6E, 0xED, 0xA0, 0x80, 0x22]) }
        #expect(throws: LottieError.invalidString) { try parse("\"a\nb\"") }
        #expect(throws: LottieError.invalidString) { try parse(#""\x""#) }
        #expect(throws: LottieError.invalidString) { try parse(#""\u12G4""#) }
        #expect(throws: LottieError.unexpectedEnd) { try parse(#""abc"#) }
        #expect(throws: LottieError.unexpectedEnd) { try parse(#""\u12"#) }
    }

    /// Strings are scanned eight bytes at a time: put each kind of special byte at every offset.
    @Test func specialBytesAtEveryOffsetOfALongString() throws {
        var failures: [String] = []
        for offset in 0..<40 {
            let before = String(repeating: "a", count: offset)
            let after = String(repeating: "b", count: 40 - offset)
            let cases: [(String, String?)] = [
                (#"\""#, "\""), (#"\n"#, "\n"), (#"\u00e9"#, "é"), ("é", "é"), ("😀", "😀"), ("\u{7F}", "\u{7F}"),
            ]
            for (inner, expected) in cases {
                let text = "\"" + before + inner + after + "\""
                if (try? parse(text)) != .string(before + expected! + after) { failures.append("\(offset): \(inner)") }
            }
            for bad: [UInt8] in [[0x0A], [0x1F], [0xFF], [0xC3]] {
                let bytes = [0x22] + Array(before.utf8) + bad + Array(after.utf8) + [0x22]
                if (try? parser.parseJSON(bytes)) != nil { failures.append("\(offset): accepted \(bad)") }
            }
            // The closing quote itself at every offset.
            if (try? parse("\"" + before + "\"")) != .string(before) { failures.append("\(offset): end") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    @Test func duplicateKeysAreKeptAndTheLastWins() throws {
        let value = try parse(#"{"a": 1, "b": 2, "a": 3}"#)
        let object = try #require(value.objectValue)
        #expect(object.count == 3)
        #expect(object["a"] == .int(3))
        #expect(object.uniqueMembers.map(\.key) == ["b", "a"])
        // And in the model: the last `fr` is the frame rate, the earlier one is not resurrected.
        let animation = try LottieParser().parse(Array(#"{"fr": 10, "fr": 30, "layers": []}"#.utf8))
        #expect(animation.frameRate == 30)
        #expect(try parser.parseJSON(animation.encoded()).objectValue?["fr"]?.doubleValue == 30)
    }

    @Test func numbers() throws {
        #expect(try parse("0") == .int(0))
        #expect(try parse("-12") == .int(-12))
        #expect(try parse("-0") == .double(-0.0))
        #expect(try parse("-0").doubleValue?.sign == .minus)
        #expect(try parse("1E+2") == .double(100))
        #expect(try parse("1e-2") == .double(0.01))
        #expect(try parse("2.5E3") == .double(2500))
        #expect(try parse("0.1") == .double(0.1))
        #expect(try parse("123456789012345678") == .int(123_456_789_012_345_678))
        #expect(try parse("1234567890123456789") == .double(Double("1234567890123456789")!))
        #expect(try parse("9007199254740993.0") == .double(9_007_199_254_740_992))
        #expect(try parse("1e-400") == .double(0))
        #expect(try parse("[1.7976931348623157e308]") == .array([.double(.greatestFiniteMagnitude)]))
        let threeHundredDigits = "1" + String(repeating: "0", count: 300)
        #expect(try parse(threeHundredDigits) == .double(1e300))
    }

    @Test func malformedNumbersAreRejected() {
        for text in ["01", "-01", "00", "1.", ".5", "-", "+1", "1e", "1e+", "--1", "0x10", "1.e3", "NaN", "Infinity", "-Infinity"] {
            #expect(throws: LottieError.self, "\(text)") { try parse(text) }
        }
        #expect(throws: LottieError.invalidNumber) { try parse("[01]") }
    }

    @Test func hugeNumbersAreTypedErrors() {
        #expect(throws: LottieError.numberOutOfRange) { try parse("1e400") }
        #expect(throws: LottieError.numberOutOfRange) { try parse("-1e400") }
        #expect(throws: LottieError.numberOutOfRange) { try parse(String(repeating: "9", count: 400)) }
        #expect(throws: LottieError.numberTooLong) { try parse("1" + String(repeating: "0", count: 5_000)) }
        #expect(throws: LottieError.numberTooLong) { try parse("0." + String(repeating: "1", count: 5_000)) }
    }

    /// Clinger's fast path and the fallback against the standard library, bit for bit.
    @Test func doublesMatchTheStandardLibraryExactly() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        var mismatches: [String] = []
        for _ in 0..<5_000 {
            let value = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            let short = Double.random(in: -1_000...1_000, using: &generator)
            for text in [value.description, String(format: "%.17g", value), String(format: "%.6f", short),
                         String(format: "%.3e", short), String(format: "%.15g", short)] {
                let expected = try #require(Double(text))
                let parsed = try parse(text).doubleValue
                if parsed?.bitPattern != expected.bitPattern { mismatches.append(text) }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test func grammar() throws {
        #expect(try parse(" \n\t[ ] ") == .array([]))
        #expect(try parse("{}") == .object(JSONObject()))
        #expect(try parse("[true,false,null]") == .array([.bool(true), .bool(false), .null]))
        #expect(throws: LottieError.unexpectedCharacter) { try parse("[1,]") }
        #expect(throws: LottieError.unexpectedCharacter) { try parse(#"{"a":1,}"#) }
        #expect(throws: LottieError.unexpectedCharacter) { try parse("[1 2]") }
        #expect(throws: LottieError.unexpectedCharacter) { try parse("{1:2}") }
        #expect(throws: LottieError.unexpectedCharacter) { try parse("[tru]") }
        #expect(throws: LottieError.trailingData) { try parse("{} {}") }
        #expect(throws: LottieError.unexpectedEnd) { try parse("") }
        #expect(throws: LottieError.unexpectedEnd) { try parse("   ") }
        #expect(throws: LottieError.notAnAnimation) { try LottieParser().parse(Array("[1]".utf8)) }
    }

    @Test func deepNestingIsATypedErrorNotAStackOverflow() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = #expect(throws: LottieError.depthLimitExceeded) { try parse(deep) }
        #expect(error?.offset == 512)
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(throws: LottieError.depthLimitExceeded) { try parse(objects) }
        // With the limit raised, the iterative parser, writer and comparison handle more depth.
        // (Not unbounded: releasing a nested value is recursive in Swift, which is one reason for the limit.)
        var configuration = LottieParser.Configuration()
        configuration.maxDepth = 2_000
        let nested = String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000)
        let value = try? LottieParser(configuration: configuration).parseJSON(Array(nested.utf8))
        #expect(value != nil)
        if let value {
            #expect(JSONWriter().write(value) == Array(nested.utf8))
            #expect(value.isEquivalent(to: value))
        }
    }

    @Test func integralNumbersCanBeWrittenAsIntegers() throws {
        let value = try LottieParser().parseJSON(Array(#"{"w":512.0,"fr":29.97,"ip":-0.0,"big":1e300,"n":[3,2.5e1]}"#.utf8))
        #expect(String(decoding: JSONWriter().write(value), as: UTF8.self)
            == #"{"w":512.0,"fr":29.97,"ip":-0.0,"big":1e+300,"n":[3,25.0]}"#)
        #expect(String(decoding: JSONWriter(integralNumbersAsIntegers: true).write(value), as: UTF8.self)
            == #"{"w":512,"fr":29.97,"ip":0,"big":1e+300,"n":[3,25]}"#)
    }

    @Test func limitsAreTypedErrors() throws {
        var configuration = LottieParser.Configuration()
        configuration.maxInputBytes = 10
        #expect(throws: LottieError.inputTooLarge) { try LottieParser(configuration: configuration).parseJSON(Array("[1,2,3,4,5,6]".utf8)) }
        configuration = LottieParser.Configuration()
        configuration.maxStringBytes = 4
        let small = LottieParser(configuration: configuration)
        #expect(throws: LottieError.stringTooLong) { try small.parseJSON(Array(#"["abcdef"]"#.utf8)) }
        #expect(throws: LottieError.stringTooLong) { try small.parseJSON(Array(#"["ab\ncdef"]"#.utf8)) }
        #expect(try small.parseJSON(Array(#"["abcd"]"#.utf8)) == .array([.string("abcd")]))
        configuration = LottieParser.Configuration()
        configuration.maxLayers = 3
        let layers = #"{"layers":[{"ty":3},{"ty":3}],"assets":[{"id":"a","layers":[{"ty":3},{"ty":3}]}]}"#
        #expect(throws: LottieError.layerLimitExceeded) { try LottieParser(configuration: configuration).parse(Array(layers.utf8)) }
    }

    @Test func errorsCarryOffsetAndPath() {
        let error = #expect(throws: LottieError.unexpectedCharacter) {
            try parse(#"{"layers": [{"ty": 4}, {"ks": {"o": x}}]}"#)
        }
        #expect(error?.path == "$.layers[1].ks.o")
        #expect(error?.offset == 36)
    }

    /// Every prefix of a real animation is an error, never a crash or a half-built value.
    @Test func everyTruncationIsATypedError() throws {
        let bytes = [UInt8](try Fixtures.data("lottie-docs/bezier.json"))
        let full = try parser.parseJSON(bytes)
        #expect(full.objectValue != nil)
        var accepted: [Int] = []
        for length in 0..<bytes.count {
            let prefix = Array(bytes[0..<length])
            // A prefix that only drops trailing white space is still the document.
            if prefix.last == UInt8(ascii: "}") && bytes[length...].allSatisfy({ $0 == 0x0A || $0 == 0x20 }) { continue }
            if (try? parser.parseJSON(prefix)) != nil { accepted.append(length) }
        }
        #expect(accepted.isEmpty, "prefixes parsed as complete documents: \(accepted.prefix(10))")
    }
}

/// SplitMix64: a deterministic generator, so the number test is reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
