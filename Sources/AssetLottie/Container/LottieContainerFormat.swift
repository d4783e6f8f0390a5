/// How the bytes of a Lottie file are packaged, decided from the bytes themselves, never the name.
public enum LottieContainerFormat: String, Sendable, Equatable {
    /// A zip archive: dotLottie (`PK\u{3}\u{4}`, or `PK\u{5}\u{6}` for an empty archive).
    case zip
    /// gzip-compressed JSON (`1f 8b`): a Telegram sticker (`.tgs`).
    case gzip
    /// Anything else is read as plain JSON.
    case json

    /// Sniffs the first bytes.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> LottieContainerFormat {
        let head = Array(bytes.prefix(4))
        if head.count >= 4, head[0] == 0x50, head[1] == 0x4B,
           (head[2] == 0x03 && head[3] == 0x04) || (head[2] == 0x05 && head[3] == 0x06) {
            return .zip
        }
        if head.count >= 2, head[0] == 0x1F, head[1] == 0x8B { return .gzip }
        return .json
    }
}
