import Foundation
import Testing

import AssetCodecs

/// `ImageRowReader` gives the pixels of a whole decode, band by band, in RGBA and RGB.
@Suite struct RowReaderTests {
    /// Every row of `reader`, read in bands of `bandRows` rows.
    static func readAll(_ reader: ImageRowReader, bandRows: Int) throws -> [UInt8] {
        var all: [UInt8] = []
        var band = [UInt8](repeating: 0xAB, count: bandRows * reader.bytesPerRow)
        while true {
            let rows = try band.withUnsafeMutableBytes { try reader.readRows(into: $0) }
            if rows == 0 { break }
            all += band[0..<(rows * reader.bytesPerRow)]
        }
        return all
    }

    static func dropAlpha(_ rgba: [UInt8]) -> [UInt8] {
        var rgb: [UInt8] = []
        rgb.reserveCapacity(rgba.count / 4 * 3)
        for (index, byte) in rgba.enumerated() where index % 4 != 3 { rgb.append(byte) }
        return rgb
    }

    @Test(arguments: ReferenceImage.of(kinds: ["png-decode-ok", "png-generated", "png-reference-output", "jpeg-decode-ok"]))
    func rowsAreTheReferencePixels(_ reference: ReferenceImage) throws {
        let data = try Fixtures.data(reference.path)
        let reader = try ImageDecoder().rowReader(for: data)
        #expect(reader.width == reference.width && reader.height == reference.height)
        #expect(reader.isStreamed == !(reader.header.format == .png && reader.header.isInterlaced))
        let rgba = try Self.readAll(reader, bandRows: 7)
        #expect(Fixtures.sha256(rgba) == reference.sha256)
        #expect(reader.isComplete && reader.rowsRead == reference.height)

        let rgb = try Self.readAll(try ImageDecoder().rowReader(for: data, layout: .rgb8), bandRows: 16)
        #expect(rgb == Self.dropAlpha(rgba))
    }

    @Test(arguments: ReferenceImage.of(kinds: ["jpeg-decode-ok-with-warning"]))
    func warningsComeWithTheRows(_ reference: ReferenceImage) throws {
        let data = try Fixtures.data(reference.path)
        let reader = try ImageDecoder().rowReader(for: data)
        #expect(Fixtures.sha256(try Self.readAll(reader, bandRows: 16)) == reference.sha256)
        #expect(reader.warnings == (try ImageDecoder().decode(data)).warnings)
        #expect(!reader.warnings.isEmpty)
    }

    @Test func aDCTScaleThatLandsOnTheTargetStreams() throws {
        let reference = try #require(ReferenceImage.all.first { $0.path == "jpeg/libjpeg-turbo/testorig.jpg" && $0.scale == 2 })
        let reader = try ImageDecoder(configuration: .init(maxDimension: 114)).rowReader(for: try Fixtures.data(reference.path))
        #expect(reader.isStreamed)
        #expect(reader.width == 114 && reader.height == 75)
        #expect(Fixtures.sha256(try Self.readAll(reader, bandRows: 5)) == reference.sha256)
    }

    @Test(arguments: ["jpeg/libjpeg-turbo/testorig.jpg", "png/pngsuite/basi6a16.png", "jpeg/jpeg-decoder-reftest/ycck.jpg"])
    func aResizedDecodeGivesTheBitmapsRows(_ path: String) throws {
        let decoder = ImageDecoder(configuration: .init(maxDimension: 21))
        let data = try Fixtures.data(path)
        let reader = try decoder.rowReader(for: data, layout: .rgb8)
        #expect(!reader.isStreamed)
        let bitmap = try decoder.decode(data).bitmap
        #expect(reader.width == bitmap.width && reader.height == bitmap.height)
        #expect(try Self.readAll(reader, bandRows: 3) == Self.dropAlpha(bitmap.pixels))
    }

    @Test func cmykToRGBIsTheRGBAWithoutAlpha() throws {
        let data = try Fixtures.data("jpeg/jpeg-decoder-reftest/ycck.jpg")
        let rgba = try ImageDecoder().decode(data).bitmap.pixels
        let rgb = try Self.readAll(try ImageDecoder().rowReader(for: data, layout: .rgb8), bandRows: 40)
        #expect(rgb == Self.dropAlpha(rgba))
    }

    @Test func bandsMayBeAnySizeAndRowsNeverRunOver() throws {
        let data = try Fixtures.data("jpeg/libjpeg-turbo/testimgp.jpg")
        let expected = try ImageDecoder().decode(data).bitmap.pixels
        for rows in [1, 2, 15, 16, 17, 1000] {
            #expect(try Self.readAll(try ImageDecoder().rowReader(for: data), bandRows: rows) == expected)
        }
        let reader = try ImageDecoder().rowReader(for: data)
        // Room for 2.5 rows takes two; the bytes past them stay as they were.
        var band = [UInt8](repeating: 0xAB, count: reader.bytesPerRow * 5 / 2)
        #expect(try band.withUnsafeMutableBytes { try reader.readRows(into: $0) } == 2)
        #expect(band[(2 * reader.bytesPerRow)...].allSatisfy { $0 == 0xAB })
    }

    @Test func aBufferSmallerThanOneRowIsATypedError() throws {
        let reader = try ImageDecoder().rowReader(for: try Fixtures.data("png/pngsuite/basn6a08.png"))
        var band = [UInt8](repeating: 0, count: reader.bytesPerRow - 1)
        #expect(throws: CodecError.bufferTooSmall) { try band.withUnsafeMutableBytes { try reader.readRows(into: $0) } }
        #expect(reader.rowsRead == 0)
    }

    @Test(arguments: CorpusFile.expecting { $0 == "must-fail" })
    func mustFailFilesFailWithATypedErrorAndStayFailed(_ file: CorpusFile) throws {
        let data = try Fixtures.data(file.path)
        do {
            let reader = try ImageDecoder().rowReader(for: data, layout: .rgb8)
            let error = #expect(throws: CodecError.self) { _ = try Self.readAll(reader, bandRows: 16) }
            var band = [UInt8](repeating: 0, count: reader.bytesPerRow)
            let again = #expect(throws: CodecError.self) { try band.withUnsafeMutableBytes { try reader.readRows(into: $0) } }
            #expect(error == again)
        } catch let error as CodecError {
            #expect([CodecError.corrupt, .truncated, .unsupported, .tooLarge].contains(error))
        }
    }

    @Test(arguments: RobustnessTests.samples)
    func truncationsEndAsAWholeDecodeEnds(_ path: String) throws {
        let data = [UInt8](try Fixtures.data(path))
        for cut in Set((1..<20).map { data.count * $0 / 20 } + [data.count - 1]).sorted() {
            let bytes = Array(data[..<cut])
            let whole = Result { try ImageDecoder().decode(bytes) }
            let rows = Result { () -> (pixels: [UInt8], warnings: [String]) in
                let reader = try ImageDecoder().rowReader(for: bytes)
                return (try Self.readAll(reader, bandRows: 16), reader.warnings)
            }
            switch (whole, rows) {
            case (.success(let image), .success(let streamed)):
                #expect(image.bitmap.pixels == streamed.pixels, "cut at \(cut)")
                #expect(image.warnings == streamed.warnings, "cut at \(cut)")
            case (.failure(let a as CodecError), .failure(let b as CodecError)):
                #expect(a == b, "cut at \(cut): \(a) / \(b)")
            default:
                Issue.record("cut at \(cut): whole \(whole), rows \(rows)")
            }
        }
    }

    @Test func thePixelBudgetIsCheckedBeforeAnyRow() throws {
        let data = try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg")
        #expect(throws: CodecError.tooLarge) { try ImageDecoder(configuration: .init(pixelBudget: 33822)).rowReader(for: data) }
        #expect(throws: CodecError.tooLarge) { try ImageDecoder().rowReader(for: PNGBombTests.bomb) }
    }
}
