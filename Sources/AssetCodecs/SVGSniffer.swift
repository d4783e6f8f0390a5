import CAssetCodecs

/// Recognises SVG text the way librsvg's and libvips's loaders do: the root element is `<svg`,
/// after an optional UTF-8 byte-order mark, white space, an XML declaration, processing
/// instructions, comments and a DOCTYPE (whose internal subset may hold entity declarations).
/// Gzip data (`.svgz`) is inflated just enough to look.
enum SVGSniffer {
    static func isSVG(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes)
        if head.count >= 3, head[0] == 0x1F, head[1] == 0x8B {
            var inflated = [UInt8](repeating: 0, count: ImageFormat.textSniffLength)
            let produced = head.withUnsafeBufferPointer { input in
                inflated.withUnsafeMutableBufferPointer { output in
                    apc_gunzip_head(input.baseAddress, input.count, output.baseAddress, output.count)
                }
            }
            return produced > 0 && rootIsSVG(inflated[..<produced])
        }
        return rootIsSVG(head[...])
    }

    /// Whether the first element of XML text is `svg` (with or without a namespace prefix).
    static func rootIsSVG(_ text: ArraySlice<UInt8>) -> Bool {
        var i = text.startIndex
        let end = text.endIndex
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { i += 3 }
        func skipSpace() { while i < end, [0x20, 0x09, 0x0A, 0x0D].contains(text[i]) { i += 1 } }
        func starts(_ s: String) -> Bool { text[i...].starts(with: Array(s.utf8)) }
        /// Moves past the first `terminator` from here; false when it is not in the text.
        func skip(past terminator: String) -> Bool {
            let t = Array(terminator.utf8)
            while i < end {
                if text[i...].starts(with: t) { i += t.count; return true }
                i += 1
            }
            return false
        }
        while true {
            skipSpace()
            guard i < end else { return false }
            if starts("<?") {
                guard skip(past: "?>") else { return false }
            } else if starts("<!--") {
                guard skip(past: "-->") else { return false }
            } else if starts("<!DOCTYPE") || starts("<!doctype") {
                // Up to the '>' that ends it, past an internal subset in brackets.
                var depth = 0
                while i < end {
                    let c = text[i]
                    if c == UInt8(ascii: "[") { depth += 1 }
                    if c == UInt8(ascii: "]") { depth -= 1 }
                    i += 1
                    if c == UInt8(ascii: ">"), depth <= 0 { break }
                }
            } else if starts("<") {
                i += 1
                // The element's name, with an optional prefix: `svg` or `x:svg`.
                var name: [UInt8] = []
                while i < end, !([0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(text[i])) {
                    name.append(text[i])
                    i += 1
                }
                let local = name.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).last.map(Array.init) ?? []
                return local == Array("svg".utf8)
            } else {
                return false
            }
        }
    }
}
