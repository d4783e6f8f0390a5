/// A still frame of a moving source, as people write it: a frame number from the start (`30`), a
/// position from 0 to 100 percent of its length (`50%`) or a time in seconds (`1.5s`).
///
/// The value of ``ImageTransform/frame`` (`frame=30`, `frame=50%`, `frame=1.5s`) and of
/// `assetpipe convert --frame`. It says nothing about any kind of source: each kind places it on
/// its own timeline. A Lottie animation counts frames from its in point and turns a time into a
/// frame at its frame rate; a video can take a time or a position.
///
/// ```swift
/// let spec = FrameSpec("1.5s")   // .seconds(1.5)
/// print(spec?.text ?? "")        // 1.5s
/// ```
public enum FrameSpec: Sendable, Hashable, CustomStringConvertible {
    /// A frame number from the start, 0 or more.
    case number(Int)
    /// A position from 0 to 100 percent of the source's length.
    case percent(Double)
    /// A time in seconds from the start, 0 or more.
    case seconds(Double)

    /// The spec `text` names, or nil when it is none of the three forms (or out of range: a
    /// negative number or time, a position past 100%, anything not finite). Spaces around it are
    /// ignored.
    public init?(_ text: some StringProtocol) {
        var body = Substring(text)
        while body.first == " " { body.removeFirst() }
        while body.last == " " { body.removeLast() }
        if body.hasSuffix("%") {
            guard let value = Self.number(body.dropLast()), value <= 100 else { return nil }
            self = .percent(value)
        } else if body.hasSuffix("s") {
            guard let value = Self.number(body.dropLast()) else { return nil }
            self = .seconds(value)
        } else if let value = Int(body), value >= 0 {
            self = .number(value)
        } else {
            return nil
        }
    }

    /// The canonical text: `30`, `50%` or `1.5s` (the shortest decimal that reads back the same;
    /// `init(_:)` reads it back).
    public var text: String {
        switch self {
        case .number(let frame): String(frame)
        case .percent(let percent): Self.text(of: percent) + "%"
        case .seconds(let seconds): Self.text(of: seconds) + "s"
        }
    }

    /// The canonical text, as ``text``.
    public var description: String { text }

    /// A non-negative decimal below 10^9 with at most four digits after the point (no sign,
    /// exponent or hexadecimal form), so that its shortest text never needs an exponent and reads
    /// back the same.
    private static func number(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 9,
            whole.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...4).contains(fraction.count), fraction.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        }
        return Double(text)
    }

    /// A number as the shortest decimal text that reads back the same (`1.5`, `2`).
    private static func text(of value: Double) -> String {
        if value == value.rounded() { return String(Int(value)) }
        return String(value)
    }
}
