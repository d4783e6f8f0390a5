extension ImageTransform {
    /// The canonical text as URL query items (`frame=50%25&w=512&format=webp`): each `,` between
    /// pairs is a `&` and the `%` of a frame position is percent-encoded; empty for `original`.
    public var queryItemsText: String {
        let canonical = canonicalText
        guard canonical != "original" else { return "" }
        return canonical.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: ",", with: "&")
    }

    /// The canonical text form: the values that differ from the defaults, as `key=value` pairs in a
    /// fixed order joined by `,` (`frame=30,w=512,h=512,fit=cover,format=webp,q=80`); `original` when every
    /// value is a default. Two transforms are equal exactly when their canonical texts are, so the
    /// text can stand in a cache key. ``init(parsing:maxOutputDimension:)`` reads it back.
    public var canonicalText: String {
        var pairs: [String] = []
        let defaults = ImageTransform()
        if let frame { pairs.append("frame=\(frame.text)") }
        if animate { pairs.append("animate=1") }
        if let framesPerSecond { pairs.append("fps=\(Self.text(of: framesPerSecond))") }
        if let from { pairs.append("from=\(from.text)") }
        if let to { pairs.append("to=\(to.text)") }
        if let page { pairs.append("page=\(page)") }
        if let width { pairs.append("w=\(width)") }
        if let height { pairs.append("h=\(height)") }
        if fit != defaults.fit { pairs.append("fit=\(fit.rawValue)") }
        if enlarge { pairs.append("enlarge=1") }
        if gravity != defaults.gravity { pairs.append("gravity=\(gravity.rawValue)") }
        if devicePixelRatio != 1 { pairs.append("dpr=\(Self.text(of: devicePixelRatio))") }
        if let background { pairs.append("bg=\(background)") }
        if format != .auto { pairs.append("format=\(format.name)") }
        if let quality { pairs.append("q=\(quality)") }
        if lossless { pairs.append("lossless=1") }
        if progressive { pairs.append("progressive=1") }
        if kernel != defaults.kernel { pairs.append("kernel=\(kernel.rawValue)") }
        if keepMetadata { pairs.append("metadata=keep") }
        if keepICCProfile { pairs.append("icc=keep") }
        return pairs.isEmpty ? "original" : pairs.joined(separator: ",")
    }

    /// Parses a transform from text: `key=value` (or `key:value`) pairs separated by `,`, `&` or
    /// `;`, as the canonical form, a CLI `--variant` or a preset writes them. `original` or an
    /// empty text is the default transform.
    ///
    /// Keys: `frame` (`30`, `50%` or `1.5s`: ``FrameSpec``), `animate`, `fps`, `from` and `to`
    /// (``FrameSpec``s), `page` (0...), `w`/`width`, `h`/`height`, `fit`, `enlarge`, `gravity`/`g`, `dpr`, `bg`/`background`,
    /// `format`/`f`, `q`/`quality`, `lossless`, `progressive`, `kernel`, `metadata` (`keep`/`strip`),
    /// `icc` (`keep`/`srgb`). Booleans are `1`/`0`/`true`/`false`.
    /// - Throws: `ImagingError.invalidTransform` for an unknown key or value, or a value out of range.
    public init(parsing text: String, maxOutputDimension: Int = ImageProcessor.Configuration().maxOutputDimension) throws {
        self.init()
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if trimmed.isEmpty || trimmed == "original" { return }
        var pairs: [(String, String)] = []
        for item in trimmed.split(whereSeparator: { $0 == "," || $0 == "&" || $0 == ";" }) {
            guard let separator = item.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
                throw ImagingError.invalidTransform("'\(item)' is not key=value")
            }
            pairs.append((String(item[..<separator]), String(item[item.index(after: separator)...])))
        }
        try self.init(pairs: pairs, maxOutputDimension: maxOutputDimension)
    }

    /// Builds a transform from key-value pairs (a URL query's items, say); keys as
    /// ``init(parsing:maxOutputDimension:)`` reads them. `ignoring` lists keys that belong to the
    /// caller (such as `url`) and are skipped.
    /// - Throws: `ImagingError.invalidTransform`.
    public init(
        pairs: [(String, String)], ignoring: Set<String> = [],
        maxOutputDimension: Int = ImageProcessor.Configuration().maxOutputDimension
    ) throws {
        self.init()
        var seen = Set<String>()
        for (rawKey, value) in pairs {
            let key = Self.aliases[rawKey.lowercased()] ?? rawKey.lowercased()
            if ignoring.contains(rawKey) || ignoring.contains(key) { continue }
            guard seen.insert(key).inserted else {
                throw ImagingError.invalidTransform("'\(key)' is given twice")
            }
            try set(key, value, maxOutputDimension: maxOutputDimension)
        }
        try validate(maxOutputDimension: maxOutputDimension)
    }

    private static let aliases = [
        "width": "w", "height": "h", "g": "gravity", "background": "bg", "f": "format", "quality": "q",
    ]

    private mutating func set(_ key: String, _ value: String, maxOutputDimension: Int) throws {
        func integer() throws -> Int {
            guard let number = Int(value) else { throw ImagingError.invalidTransform("\(key) must be a whole number (got '\(value)')") }
            return number
        }
        func flag() throws -> Bool {
            switch value.lowercased() {
            case "1", "true", "yes", "": return true
            case "0", "false", "no": return false
            default: throw ImagingError.invalidTransform("\(key) must be 1 or 0 (got '\(value)')")
            }
        }
        func choice<T: RawRepresentable & CaseIterable>(_ type: T.Type) throws -> T where T.RawValue == String {
            guard let found = T(rawValue: value.lowercased()) else {
                let names = T.allCases.map(\.rawValue).joined(separator: ", ")
                throw ImagingError.invalidTransform("\(key) must be one of \(names) (got '\(value)')")
            }
            return found
        }
        switch key {
        case "frame":
            guard let spec = FrameSpec(value) else {
                throw ImagingError.invalidTransform(
                    "frame must be a frame number (30), a position (50%) or a time (1.5s) (got '\(value.prefix(64))')")
            }
            frame = spec
        case "animate": animate = try flag()
        case "fps":
            guard let rate = Double(value), rate.isFinite else { throw ImagingError.invalidTransform("fps must be a number (got '\(value.prefix(64))')") }
            framesPerSecond = rate
        case "from", "to":
            guard let spec = FrameSpec(value) else {
                throw ImagingError.invalidTransform(
                    "\(key) must be a frame number (30), a position (50%) or a time (1.5s) (got '\(value.prefix(64))')")
            }
            if key == "from" { from = spec } else { to = spec }
        case "page":
            let number = try integer()
            guard number >= 0, number <= 65_535 else { throw ImagingError.invalidTransform("page must be 0 to 65535 (got \(number))") }
            page = number
        case "w": width = try integer()
        case "h": height = try integer()
        case "fit": fit = try choice(Fit.self)
        case "enlarge": enlarge = try flag()
        case "gravity": gravity = try choice(Gravity.self)
        case "dpr":
            guard let ratio = Double(value), ratio.isFinite else {
                throw ImagingError.invalidTransform("dpr must be a number (got '\(value)')")
            }
            devicePixelRatio = ratio
        case "bg":
            guard let color = RGBColor(hex: value) else {
                throw ImagingError.invalidTransform("bg must be RRGGBB or RGB in hexadecimal (got '\(value)')")
            }
            background = color
        case "format":
            if value.lowercased() == "auto" {
                format = .auto
            } else if let named = OutputFormat(rawValue: value.lowercased()) ?? OutputFormat(pathExtension: value) {
                format = .format(named)
            } else {
                throw ImagingError.invalidTransform("format must be auto, jpeg, png, webp, avif, gif or mp4 (got '\(value)')")
            }
        case "q": quality = try integer()
        case "lossless": lossless = try flag()
        case "progressive": progressive = try flag()
        case "kernel": kernel = try choice(ResampleKernel.self)
        case "metadata":
            switch value.lowercased() {
            case "keep": keepMetadata = true
            case "strip": keepMetadata = false
            default: throw ImagingError.invalidTransform("metadata must be keep or strip (got '\(value)')")
            }
        case "icc":
            switch value.lowercased() {
            case "keep": keepICCProfile = true
            case "srgb": keepICCProfile = false
            default: throw ImagingError.invalidTransform("icc must be keep or srgb (got '\(value)')")
            }
        default:
            throw ImagingError.invalidTransform("unknown transform key '\(key)'")
        }
    }

    /// A ratio as the shortest decimal text that reads back the same (`1.5`, `2`).
    private static func text(of value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
        return String(value)
    }
}
