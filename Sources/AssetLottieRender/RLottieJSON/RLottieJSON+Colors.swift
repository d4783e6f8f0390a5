import AssetLottie

extension RLottieJSON {
    /// Longest span between two colour keyframes written frame by frame by
    /// ``colorWithOvershootClamped(_:)``; a longer one is kept as it came.
    static let maxClampedSpan = 1_000

    /// A fill's or a stroke's (`fl`, `st`) animated colour `c` with each span between two
    /// keyframes whose easing takes a channel outside 0...1 at a whole frame written as one
    /// linear keyframe per whole frame of the span, of the value there clamped to 0...1. Other
    /// objects, other spans, and spans longer than ``maxClampedSpan`` frames as they came.
    ///
    /// An easing whose `y` leaves 0...1 overshoots the keyframes' values: lottie-web and ThorVG
    /// clamp the colour; rlottie 0.1 turns each channel into a byte without clamping, so 1.05
    /// wraps to 12 and a white eased past white came out near black (lottie-ios' `pr_1604_2`: a
    /// fill eased from white to pink with `o.y` -1.543, a dark rectangle where ThorVG draws
    /// none). rlottie evaluates properties at whole frames only, so there the values written are
    /// the clamped ones, and each keyframe carries its end value `e` as well as its start `s`.
    static func colorWithOvershootClamped(_ object: JSONObject) -> JSONObject {
        guard let type = object["ty"]?.stringValue, type == "fl" || type == "st",
              let position = object.members.lastIndex(where: { $0.key == "c" }),
              case .object(var color) = object.members[position].value,
              let slot = color.members.lastIndex(where: { $0.key == "k" }),
              case .array(let list) = color.members[slot].value else { return object }
        let keyframes = list.compactMap(\.objectValue)
        guard keyframes.count == list.count, keyframes.count > 1 else { return object }
        var written: [JSONValue] = []
        var changed = false
        for (index, keyframe) in keyframes.enumerated() {
            guard index + 1 < keyframes.count, let span = clampedSpan(from: keyframe, to: keyframes[index + 1]) else {
                written.append(.object(keyframe))
                continue
            }
            var first = keyframe
            first.members.removeAll { ["i", "o", "e"].contains($0.key) }
            first.members += linearEasing(to: span.values[0])
            written.append(.object(first))
            for (offset, frame) in span.frames.enumerated() {
                let end = offset + 1 < span.values.count ? span.values[offset + 1] : span.end
                written.append(.object(JSONObject(members: [
                    .init(key: "t", value: .int(frame)), .init(key: "s", value: numberList(span.values[offset])),
                ] + linearEasing(to: end))))
            }
            changed = true
        }
        guard changed else { return object }
        color.members[slot].value = .array(written)
        var object = object
        object.members[position].value = .object(color)
        return object
    }

    /// The whole frames strictly inside the span from `keyframe` to `next`, the colour at each
    /// clamped to 0...1, and the span's end value; nil when the span is held, cannot be read,
    /// is longer than ``maxClampedSpan`` or stays within 0...1 at every whole frame.
    private static func clampedSpan(from keyframe: JSONObject, to next: JSONObject) -> (frames: [Int], values: [[Double]], end: [Double])? {
        guard keyframe["h"]?.intValue != 1,
              let start = keyframe["s"].flatMap(numbers), let end = keyframe["e"].flatMap(numbers) ?? next["s"].flatMap(numbers),
              !start.isEmpty, start.count == end.count,
              let from = keyframe["t"]?.doubleValue, let to = next["t"]?.doubleValue, abs(from) <= 1e9, abs(to) <= 1e9,
              to > from, to - from <= Double(maxClampedSpan),
              let out = keyframe["o"]?.objectValue, let into = keyframe["i"]?.objectValue,
              let outX = out["x"].flatMap(numbers), let outY = out["y"].flatMap(numbers),
              let inX = into["x"].flatMap(numbers), let inY = into["y"].flatMap(numbers),
              !outX.isEmpty, !outY.isEmpty, !inX.isEmpty, !inY.isEmpty else { return nil }
        func at(_ list: [Double], _ channel: Int) -> Double { list[min(channel, list.count - 1)] }
        let frames = Array(Int(from.rounded(.down)) + 1 ..< Int(to.rounded(.up)))
        guard !frames.isEmpty else { return nil }
        var overshoots = false
        let values = frames.map { frame in
            let progress = (Double(frame) - from) / (to - from)
            return start.indices.map { channel in
                let eased = easing(progress, at(outX, channel), at(outY, channel), at(inX, channel), at(inY, channel))
                let value = start[channel] + (end[channel] - start[channel]) * eased
                if !(0...1).contains(value) { overshoots = true }
                return min(max(value, 0), 1)
            }
        }
        return overshoots ? (frames, values, end) : nil
    }

    /// The cubic Bézier easing from (0, 0) to (1, 1) through (`x1`, `y1`) and (`x2`, `y2`) at
    /// `x` (the `x`s clamped to 0...1, as Lottie requires them, so the curve is a function of x).
    static func easing(_ x: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        let (a, b) = (min(max(x1, 0), 1), min(max(x2, 0), 1))
        func cubic(_ u: Double, _ p1: Double, _ p2: Double) -> Double {
            3 * (1 - u) * (1 - u) * u * p1 + 3 * (1 - u) * u * u * p2 + u * u * u
        }
        var (low, high) = (0.0, 1.0)
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if cubic(middle, a, b) < x { low = middle } else { high = middle }
        }
        return cubic((low + high) / 2, y1, y2)
    }

    /// `o` (0, 0), `i` (1, 1) and `e` `end`: a straight line to `end`.
    private static func linearEasing(to end: [Double]) -> [JSONObject.Member] {
        func point(_ value: Int) -> JSONValue {
            .object(JSONObject(members: [.init(key: "x", value: .array([.int(value)])), .init(key: "y", value: .array([.int(value)]))]))
        }
        return [.init(key: "o", value: point(0)), .init(key: "i", value: point(1)), .init(key: "e", value: numberList(end))]
    }

    private static func numbers(_ value: JSONValue) -> [Double]? {
        switch value {
        case .array(let list): let numbers = list.compactMap(\.doubleValue); return numbers.count == list.count ? numbers : nil
        default: return value.doubleValue.map { [$0] }
        }
    }

    private static func numberList(_ values: [Double]) -> JSONValue { .array(values.map(JSONValue.double)) }
}
