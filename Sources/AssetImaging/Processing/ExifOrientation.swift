/// Rewrites the orientation tag of a kept EXIF block: the output's pixels are upright, so its
/// orientation is 1.
enum ExifOrientation {
    /// `exif` (a TIFF structure) with IFD0's orientation (tag 0x0112) set to 1; unchanged when it
    /// has none or does not parse.
    static func uprighted(_ exif: [UInt8]) -> [UInt8] {
        guard exif.count >= 8 else { return exif }
        let little: Bool
        switch (exif[0], exif[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return exif
        }
        func read16(_ at: Int) -> Int {
            little ? Int(exif[at]) | Int(exif[at + 1]) << 8 : Int(exif[at]) << 8 | Int(exif[at + 1])
        }
        func read32(_ at: Int) -> Int {
            little ? read16(at) | read16(at + 2) << 16 : read16(at) << 16 | read16(at + 2)
        }
        let ifd = read32(4)
        guard ifd >= 8, ifd + 2 <= exif.count else { return exif }
        let count = read16(ifd)
        var result = exif
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard entry + 12 <= exif.count else { break }
            if read16(entry) == 0x0112, read16(entry + 2) == 3 {
                result[entry + 8] = little ? 1 : 0
                result[entry + 9] = little ? 0 : 1
            }
        }
        return result
    }
}
