/// One input through a parser of this module, for the libFuzzer target `range` (`scripts/fuzz`)
/// and the regression tests that replay what it found (`Fixtures/fuzz/`).
///
/// Returns nil when the parser kept its promises, or which promise it broke; a crash is a finding
/// too. Not part of the library's API.
@_spi(Fuzzing)
public enum ServerFuzzing {
    /// A client's `Range` value against a length taken from the input's first bytes: a range that
    /// resolves lies inside the representation and is not empty, and its `Content-Range` parses.
    public static func range(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count >= 8 else { return nil }
        let length = Int64(bytes.loadUnaligned(as: UInt64.self) >> 1)
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[8...]), as: UTF8.self)
        guard let range = ClientRange(header: text), let resolved = range.resolve(length: length) else { return nil }
        if resolved.isEmpty || resolved.lowerBound < 0 || resolved.upperBound > length {
            return "\(text) resolves to \(resolved) of \(length) bytes"
        }
        let field = ClientRange.contentRange(resolved, length: length)
        if !field.hasPrefix("bytes ") { return "the Content-Range \(field) is malformed" }
        return nil
    }
}
