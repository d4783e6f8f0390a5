/// An opaque 8-bit sRGB colour: the background a transparent image is flattened onto (JPEG) or a
/// padded image is laid on (`fit=contain`).
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    /// The red channel, 0-255.
    public var red: UInt8
    /// The green channel, 0-255.
    public var green: UInt8
    /// The blue channel, 0-255.
    public var blue: UInt8

    /// Creates a colour from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// White, the default background.
    public static let white = RGBColor(red: 255, green: 255, blue: 255)

    /// Parses `RRGGBB` or `RGB` hexadecimal digits, with or without a leading `#`.
    public init?(hex text: String) {
        var digits = Substring(text)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        switch digits.count {
        case 6:
            self.init(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xff), blue: UInt8(value & 0xff))
        case 3:
            let r = UInt8((value >> 8) & 0xf), g = UInt8((value >> 4) & 0xf), b = UInt8(value & 0xf)
            self.init(red: r * 17, green: g * 17, blue: b * 17)
        default:
            return nil
        }
    }

    /// Six lowercase hexadecimal digits, `ffffff`.
    public var description: String {
        let value = (UInt32(red) << 16) | (UInt32(green) << 8) | UInt32(blue)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}
