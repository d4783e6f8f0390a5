import AssetCodecs
import Foundation

/// The files `assetpipe decode --output` writes, chosen by extension.
enum PixelFileFormat {
    /// netpbm P7: `TUPLTYPE RGB_ALPHA`, `MAXVAL 255`, rows of RGBA.
    case pam
    /// netpbm P6: rows of RGB, alpha dropped.
    case ppm
    /// Raw RGBA rows, no header.
    case rgba

    init?(path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "pam": self = .pam
        case "ppm": self = .ppm
        case "rgba": self = .rgba
        default: return nil
        }
    }

    /// The file's bytes for `bitmap`.
    func encode(_ bitmap: Bitmap) -> Data {
        let rowBytes = bitmap.width * 4
        var data = Data()
        switch self {
        case .pam:
            data.append(contentsOf: Array(
                "P7\nWIDTH \(bitmap.width)\nHEIGHT \(bitmap.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8))
        case .ppm:
            data.append(contentsOf: Array("P6\n\(bitmap.width) \(bitmap.height)\n255\n".utf8))
        case .rgba:
            break
        }
        data.reserveCapacity(data.count + bitmap.height * rowBytes)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<bitmap.height {
                let row = UnsafeBufferPointer(rebasing: pixels[(y * bitmap.bytesPerRow)..<(y * bitmap.bytesPerRow + rowBytes)])
                if self == .ppm {
                    var rgb = [UInt8](repeating: 0, count: bitmap.width * 3)
                    for x in 0..<bitmap.width {
                        rgb[x * 3] = row[x * 4]
                        rgb[x * 3 + 1] = row[x * 4 + 1]
                        rgb[x * 3 + 2] = row[x * 4 + 2]
                    }
                    data.append(contentsOf: rgb)
                } else {
                    data.append(row)
                }
            }
        }
        return data
    }

    func write(_ bitmap: Bitmap, to path: String) throws {
        try encode(bitmap).write(to: URL(fileURLWithPath: path))
    }
}
