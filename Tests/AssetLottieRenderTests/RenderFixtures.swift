import AssetCodecs
import AssetLottie
import Foundation
import Testing
import ZIPFoundation

/// Fixtures (`Fixtures/lottie`: the shared corpus, with its sources and licenses; `Fixtures/png`)
/// and small helpers for the renderer tests.
enum RenderFixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func data(_ relative: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(relative)) }

    /// The default animation of the Lottie file at `relative` (JSON, dotLottie or `.tgs`).
    static func animation(_ relative: String) throws -> LottieAnimation {
        try #require(try LottieDocumentReader().read(data(relative)).animations.first?.animation)
    }

    /// A dotLottie archive (manifest version 1) of one animation and its images, in memory.
    static func dotLottie(animationID: String, json: Data, images: [String: Data]) throws -> Data {
        let archive = try Archive(accessMode: .create)
        func add(_ path: String, _ bytes: Data) throws {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        try add("manifest.json", Data(#"{"version":"1.0","animations":[{"id":"\#(animationID)"}]}"#.utf8))
        try add("animations/\(animationID).json", json)
        for (name, bytes) in images { try add("images/\(name)", bytes) }
        return try #require(archive.data)
    }

    /// Whether any pixel differs between two bitmaps of one size.
    static func differ(_ a: Bitmap, _ b: Bitmap) -> Bool {
        a.width != b.width || a.height != b.height || a.pixels != b.pixels
    }

    /// Pixels whose alpha is not 0.
    static func visiblePixels(_ bitmap: Bitmap) -> Int {
        stride(from: 3, to: bitmap.pixels.count, by: 4).reduce(0) { $0 + (bitmap.pixels[$1] == 0 ? 0 : 1) }
    }

    /// Expects `bitmap` to be ThorVG's frame `reference` (a file of `Fixtures/lottie/thorvg-frames`)
    /// to within `far` (the share of pixels more than 48 luma levels apart) and `mean` (levels).
    static func expectClose(_ bitmap: Bitmap, toThorVG reference: String, far limit: Double, mean meanLimit: Double) throws {
        let reference = try ImageDecoder().decode(data("lottie/thorvg-frames/\(reference)")).bitmap
        #expect(bitmap.width == reference.width && bitmap.height == reference.height)
        let (mean, far) = RLottieShapeTests.lumaDifference(bitmap, reference)
        #expect(far < limit, "\(far * 100)% of the pixels differ by more than 48 levels")
        #expect(mean < meanLimit, "mean difference \(mean) levels")
    }
}
