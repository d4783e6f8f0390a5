import AssetCodecs
import AssetLottie

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes an animation's image assets safe for rlottie, whose image decoder (stb_image) trusts a
/// header's size and reads files by path.
///
/// An image stays when it is a `data:` URL whose payload decodes and is a PNG or JPEG whose header
/// our decoders read; it is written back as a canonical base64 URL of exactly the bytes checked,
/// with `e` 1 and `u` empty. Any other image (a file name, another format, a payload or header
/// that does not read) is emptied (`p` and `u` "", `e` 0), which rlottie draws as nothing.
enum EmbeddedImages {
    /// Rewrites the image assets of `assets`; returns how many were emptied.
    /// - Throws: `LottieRenderError.sizeTooLarge` when the images together declare more than
    ///   `maxPixels` pixels.
    static func prepare(_ assets: inout [LottieAsset], maxPixels: Int) throws(LottieRenderError) -> Int {
        let decoder = ImageDecoder(configuration: .init(pixelBudget: maxPixels))
        var pixels = 0
        var omitted = 0
        for position in assets.indices {
            guard case .image(var image) = assets[position] else { continue }
            if let (data, header) = try readable(image, decoder: decoder) {
                pixels += header.pixelCount
                guard pixels <= maxPixels else {
                    throw .sizeTooLarge("the embedded images declare more than \(maxPixels) pixels together")
                }
                image.path = "data:image/\(header.format == .png ? "png" : "jpeg");base64,\(data.base64EncodedString())"
                image.embedded = 1
            } else {
                image.path = ""
                image.embedded = 0
                omitted += 1
            }
            image.directory = ""
            assets[position] = .image(image)
        }
        return omitted
    }

    /// The bytes and header of an image rlottie may decode, or nil.
    private static func readable(
        _ image: LottieImageAsset, decoder: ImageDecoder
    ) throws(LottieRenderError) -> (Data, ImageHeader)? {
        guard case .embedded(_, let data) = image.source,
              let format = ImageFormat(sniffing: data), format == .png || format == .jpeg else { return nil }
        do {
            return (data, try decoder.header(of: data))
        } catch let error as CodecError where error == .tooLarge {
            throw .sizeTooLarge("an embedded image (\(image.id ?? "no id")) is too large: \(error.message)")
        } catch {
            return nil
        }
    }
}
