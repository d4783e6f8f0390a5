import AssetCodecs
import CAssetLottieRender

/// Calls into CAssetLottieRender and turns its status codes into Swift values.
enum RLottieBridge {
    /// Renders `frame` of `input` at `width` x `height` (checked by the caller) into a new bitmap.
    static func render(_ input: LottieRenderInput, frame: Int, width: Int, height: Int) throws(LottieRenderError) -> Bitmap {
        var expected = alr_facts(width: input.width, height: input.height, frame_count: input.rlottieFrameCount)
        var read = alr_facts()
        var message = [CChar](repeating: 0, count: Int(ALR_MESSAGE_CAPACITY))
        // An array's elements start 16-byte aligned (its storage comes from malloc, after a
        // 32-byte header), as rlottie's 32-bit pixels need; the C side checks it all the same.
        // The pixels are not zeroed here: rlottie clears the whole surface before it draws
        // (`VPainter::begin`, every call, as each call draws on a new render tree), and on any
        // status but ALR_OK the array is dropped unread. `RLottieSurfaceTests` renders into a
        // buffer full of garbage and into a zeroed one and finds the same bytes.
        var status: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: width * height * 4) { pixels, initialized in
            status = input.json.withUnsafeBytes { json in
                message.withUnsafeMutableBufferPointer { text in
                    alr_render_rgba(
                        json.baseAddress?.assumingMemoryBound(to: CChar.self), json.count, &expected, frame,
                        pixels.baseAddress, width, height, pixels.count, &read, text.baseAddress)
                }
            }
            initialized = pixels.count
        }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch UInt32(bitPattern: status) {
        case ALR_OK.rawValue:
            return Bitmap(width: width, height: height, bytesPerRow: width * 4, pixels: bytes)
        case ALR_ERR_LOAD.rawValue, ALR_ERR_MISMATCH.rawValue:
            throw .unsupported(text)
        default:
            throw .renderFailed(text)
        }
    }
}
