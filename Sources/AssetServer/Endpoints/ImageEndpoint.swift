import AssetCodecs
import AssetPipeline
import Foundation
import HTTPTypes
import NIOCore

/// `GET|HEAD /v1/image?url=U[&maxDimension=N][&maxPixels=N][&format=pam|ppm|rgba]`: the decoded
/// bitmap through ``ImageUtil`` (memoized; one decode for concurrent requests), as netpbm PAM
/// (RGBA, the default), PPM (RGB) or raw RGBA rows, with `X-Image-Width`, `X-Image-Height` and
/// `X-Image-Channels`. Bytes that do not decode are a 422 with the codec's error code.
struct ImageEndpoint: Sendable {
    let context: ServerContext

    func answer(_ incoming: IncomingRequest) async throws -> Reply {
        let asset = try AssetTarget(incoming)
        let format = try RasterFormat(parameter: incoming.parameter("format"))
        var options = ImageUtil.Options()
        options.maxDimension = try incoming.positiveInt("maxDimension")
        if let pixels = try incoming.positiveInt("maxPixels") { options.pixelBudget = pixels }
        guard let url = URL(string: asset.url) else { throw AssetServerError.invalidParameter("url", "is not a valid URL") }
        let start = ContinuousClock.now
        let decodesBefore = context.images.decodeCount
        let decoded = try await context.images.decodedImage(for: url, options: options)
        if context.images.decodeCount != decodesBefore {
            context.metrics.recordDecode(kind: "image", seconds: (ContinuousClock.now - start).seconds)
        }
        let bitmap = decoded.bitmap
        var fields = HTTPFields()
        fields[.contentType] = format.contentType
        fields[.xImageWidth] = String(bitmap.width)
        fields[.xImageHeight] = String(bitmap.height)
        fields[.xImageChannels] = String(format.channels)
        fields[.xImageFormat] = decoded.header.format.rawValue
        fields[.xImageSourceWidth] = String(decoded.header.width)
        fields[.xImageSourceHeight] = String(decoded.header.height)
        let header = format.header(width: bitmap.width, height: bitmap.height)
        let length = Int64(header.count) + Int64(bitmap.width * bitmap.height * format.channels)
        let pump = incoming.pump
        return Reply(status: .ok, fields: fields, length: length) { writer in
            try await pump.write(ByteBuffer(bytes: header), to: &writer)
            var row = 0
            while row < bitmap.height {
                let rows = min(bitmap.height - row, max(1, (256 << 10) / max(1, bitmap.width * 4)))
                try await pump.write(format.band(of: bitmap, rows: row..<(row + rows)), to: &writer)
                row += rows
            }
        }
    }
}

/// The pixel formats `/v1/image` answers in.
enum RasterFormat: String, Sendable {
    case pam, ppm, rgba

    init(parameter: String?) throws {
        guard let parameter else {
            self = .pam
            return
        }
        guard let format = RasterFormat(rawValue: parameter.lowercased()) else {
            throw AssetServerError.invalidParameter("format", "must be pam, ppm or rgba")
        }
        self = format
    }

    var contentType: String {
        switch self {
        case .pam: return "image/x-portable-arbitrarymap"
        case .ppm: return "image/x-portable-pixmap"
        case .rgba: return "application/octet-stream"
        }
    }

    var channels: Int { self == .ppm ? 3 : 4 }

    /// The netpbm header (none for raw rows).
    func header(width: Int, height: Int) -> [UInt8] {
        switch self {
        case .pam: return Array("P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8)
        case .ppm: return Array("P6\n\(width) \(height)\n255\n".utf8)
        case .rgba: return []
        }
    }

    /// The bytes of `rows` of an RGBA bitmap in this format.
    func band(of bitmap: Bitmap, rows: Range<Int>) -> ByteBuffer {
        let rowBytes = bitmap.width * channels
        var buffer = ByteBufferAllocator().buffer(capacity: rows.count * rowBytes)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for y in rows {
                let start = y * bitmap.bytesPerRow
                if self == .ppm {
                    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: rowBytes) { out in
                        for x in 0..<bitmap.width {
                            out[x * 3] = pixels[start + x * 4]
                            out[x * 3 + 1] = pixels[start + x * 4 + 1]
                            out[x * 3 + 2] = pixels[start + x * 4 + 2]
                        }
                        return rowBytes
                    }
                } else {
                    buffer.writeBytes(UnsafeBufferPointer(rebasing: pixels[start..<(start + rowBytes)]))
                }
            }
        }
        return buffer
    }
}
