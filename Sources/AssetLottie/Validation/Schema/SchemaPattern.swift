/// A schema `pattern`, compiled by `scripts/gen-lottie-schema` into a DFA over classes of Unicode scalars.
///
/// Matching is one table look-up per scalar: linear in the string, no backtracking, no allocation, so a
/// multi-megabyte `data:` URL costs what reading it costs. The classes come from the pattern's own
/// character sets (ECMA-262 meaning: `.` excludes line terminators, `\w` and `\d` are ASCII).
struct SchemaPattern: Sendable {
    /// The pattern as the schema writes it.
    let source: String
    /// Class `i` holds the scalars from `bounds[i]` up to `bounds[i + 1] - 1` (the last one, up to U+10FFFF).
    private let bounds: [UInt32]
    private let accepting: [Bool]
    /// `transitions[state * classCount + class]`: the next state, or -1 when no match is possible.
    private let transitions: [Int32]
    private let asciiClasses: [Int32]

    init(source: String, bounds: [UInt32], accepting: [Bool], transitions: [Int32]) {
        self.source = source
        self.bounds = bounds
        self.accepting = accepting
        self.transitions = transitions
        var classes = [Int32](repeating: 0, count: 128)
        var current: Int32 = 0
        for scalar in 0..<128 {
            while Int(current) + 1 < bounds.count, bounds[Int(current) + 1] <= UInt32(scalar) { current += 1 }
            classes[scalar] = current
        }
        asciiClasses = classes
    }

    /// `true` when `text` matches (JSON Schema's unanchored search, with the pattern's own anchors).
    func matches(_ text: String) -> Bool {
        let classCount = bounds.count
        var state = 0
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let scalarClass = value < 128 ? Int(asciiClasses[Int(value)]) : classOf(value)
            let next = transitions[state * classCount + scalarClass]
            if next < 0 { return false }
            state = Int(next)
        }
        return accepting[state]
    }

    private func classOf(_ value: UInt32) -> Int {
        // The last class whose lower bound is <= value (bounds[0] is 0).
        var low = 0
        var high = bounds.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if bounds[middle] <= value { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
