import AssetCodecs
import AssetLoading
import AssetPipeline
import Foundation
import HTTPTypes
import NIOCore

/// `GET|HEAD /v1/image` with a transform (`w`, `h`, `format=webp`..., or the path form
/// `/v1/image/{signature}/{options}/{source}.{ext}`): the encoded variant (``VariantEndpoint``).
///
/// `GET|HEAD /v1/image?url=U[&maxDimension=N][&maxPixels=N][&format=pam|ppm|rgba]`: the decoded
/// bitmap through ``ImageUtil`` (memoized; one decode for concurrent requests), as netpbm PAM
/// (RGBA, the default), PPM (RGB) or raw RGBA rows, with `X-Image-Width`, `X-Image-Height` and
/// `X-Image-Channels`. Bytes that do not decode are a 422 with the codec's error code. A server
/// with a signing key serves no raw pixels (403 `signature_required`): only signed variants.
struct ImageEndpoint: Sendable {
    let context: ServerContext

    func answer(_ incoming: IncomingRequest) async throws -> Reply {
        let path = incoming.path
        let isPathForm = path.hasPrefix("/v1/image/")
        if isPathForm || VariantTarget.isVariantQuery(incoming) {
            let service = context.configuration.images
            do {
                let maxSide = service.util.processor.maxOutputDimension
                let target = isPathForm
                    ? try VariantTarget(path: path.dropFirst("/v1/image/".count), service: service, maxOutputDimension: maxSide)
                    : try VariantTarget(query: incoming, service: service, maxOutputDimension: maxSide)
                return try await VariantEndpoint(context: context).answer(incoming, target: target)
            } catch {
                let failure = AssetServerError.fromImaging(error, retryAfter: service.retryAfterSeconds)
                context.metrics.recordRefusal(code: failure.shortDescription)
                throw failure
            }
        }
        if context.configuration.images.signer != nil {
            // a signing server makes signed variants only: raw pixels would let anyone have any
            // allowed source fetched and decoded
            context.metrics.recordRefusal(code: AssetServerError.signatureRequired.shortDescription)
            throw AssetServerError.signatureRequired
        }
        do {
            return try await rawPixels(incoming)
        } catch let error as LoaderError where error == .tooLarge {
            throw AssetServerError.fromImaging(error, retryAfter: context.configuration.images.retryAfterSeconds)
        }
    }

    /// The decoded bitmap as PAM, PPM or raw RGBA.
    private func rawPixels(_ incoming: IncomingRequest) async throws -> Reply {
        let asset = try AssetTarget(incoming)
        let format = try PixelFileFormat(parameter: incoming.parameter("format"))
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
        fields[.contentType] = format.mediaType
        fields[.xImageWidth] = String(bitmap.width)
        fields[.xImageHeight] = String(bitmap.height)
        fields[.xImageChannels] = String(format.layout.bytesPerPixel)
        fields[.xImageFormat] = decoded.header.format.rawValue
        fields[.xImageSourceWidth] = String(decoded.header.width)
        fields[.xImageSourceHeight] = String(decoded.header.height)
        let length = Int64(format.byteCount(width: bitmap.width, height: bitmap.height))
        let pump = incoming.pump
        return Reply(status: .ok, fields: fields, length: length, pump: pump) { writer in
            let header = format.header(width: bitmap.width, height: bitmap.height)
            if !header.isEmpty { try await pump.write(ByteBuffer(bytes: header), to: &writer) }
            let bandRows = max(1, PixelFileFormat.defaultBandBytes / max(1, bitmap.width * format.layout.bytesPerPixel))
            var row = 0
            while row < bitmap.height {
                var band = ByteBuffer()
                format.writeRows(of: bitmap, rows: row..<(row + bandRows)) { band.writeBytes($0) }
                try await pump.write(band, to: &writer)
                row += bandRows
            }
        }
    }
}

extension PixelFileFormat {
    /// The `format` query parameter: `pam` (the default), `ppm` or `rgba`.
    init(parameter: String?) throws {
        guard let parameter else {
            self = .pam
            return
        }
        guard let format = PixelFileFormat(rawValue: parameter.lowercased()) else {
            throw AssetServerError.invalidParameter("format", "must be pam, ppm or rgba")
        }
        self = format
    }
}
