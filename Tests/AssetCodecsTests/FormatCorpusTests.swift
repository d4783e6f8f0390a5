import Foundation
import Testing

@testable import AssetCodecs

/// One row of a format's `Fixtures/<format>/reference-pixels.tsv` (written by
/// `scripts/fixtures/reference-<format>` from the format's reference decoder).
struct FormatReference: Sendable, CustomTestStringConvertible {
    var set: String
    var path: String
    var page: Int?
    var width: Int
    var height: Int
    var sha256: String
    var maxDifference: Int
    /// A PNG (relative to `Fixtures/`) with the reference pixels, where they may differ by `maxDifference`.
    var png: String?

    var testDescription: String { "\(set)/\(path)\(page.map { " page \($0)" } ?? "") \(width)x\(height)" }

    static let sets = ["webp", "avif", "heif", "gif", "tiff", "svg", "jxl"]

    static let all: [FormatReference] = sets.flatMap { set in
        Fixtures.table("\(set)/reference-pixels.tsv").compactMap { row -> FormatReference? in
            guard let path = row["path"], let width = row["width"].flatMap(Int.init), let height = row["height"].flatMap(Int.init),
                let sha = row["sha256"]
            else { return nil }
            let page = row["page"].flatMap(Int.init).flatMap { $0 < 0 ? nil : $0 }
            let png = row["png"].flatMap { $0.isEmpty ? nil : $0 }
            return FormatReference(
                set: set, path: path, page: page, width: width, height: height, sha256: sha,
                maxDifference: row["maxdiff"].flatMap(Int.init) ?? 0, png: png)
        }
    }
}

/// A corpus row of a format set, with its expectation.
struct FormatCorpusFile: Sendable, CustomTestStringConvertible {
    var path: String
    var expect: String
    var testDescription: String { path }

    static let all: [FormatCorpusFile] = FormatReference.sets.flatMap { set in
        Fixtures.table("\(set)/FILES.tsv").compactMap { row -> FormatCorpusFile? in
            guard let path = row["path"], let expect = row["expect"] else { return nil }
            return FormatCorpusFile(path: "\(set)/\(path)", expect: expect)
        }
    }

    static func expecting(_ predicate: @Sendable (String) -> Bool) -> [FormatCorpusFile] { all.filter { predicate($0.expect) } }
}

/// WebP, AVIF, HEIF, GIF, TIFF, SVG and JPEG XL: every corpus file meets its expectation, and the
/// pixels equal the format's reference decoder's.
@Suite struct FormatCorpusTests {
    @Test func aJPEGNamedWebPIsDecodedAsTheJPEGItIs() throws {
        let decoded = try ImageDecoder().decode(Fixtures.data("webp/webp-pixbuf-loader/data/test_jpeg_as_webp.webp"))
        #expect(decoded.header.format == .jpeg)
    }

    @Test func everySetHasFilesAndReferences() {
        for set in FormatReference.sets {
            #expect(FormatCorpusFile.all.contains { $0.path.hasPrefix("\(set)/") }, "no corpus rows for \(set)")
            #expect(FormatReference.all.contains { $0.set == set }, "no reference pixels for \(set)")
        }
    }

    @Test(arguments: FormatReference.all)
    func decodesToTheReferencePixels(_ reference: FormatReference) throws {
        let data = try Fixtures.data("\(reference.set)/\(reference.path)")
        let decoder = ImageDecoder(configuration: .init(page: reference.page))
        let header = try decoder.header(of: data)
        let pixels: [UInt8]
        if header.width == reference.width, header.height == reference.height {
            let decoded = try decoder.decode(data)
            #expect(decoded.bitmap.width == reference.width && decoded.bitmap.height == reference.height)
            pixels = decoded.bitmap.pixels
        } else {
            // a scaled decode (WebP) or a drawing at another size (SVG)
            let reader = try decoder.rowReader(for: data, width: reference.width, height: reference.height)
            var rows = [UInt8](repeating: 0, count: reference.width * reference.height * 4)
            let read = try rows.withUnsafeMutableBytes { try reader.readRows(into: $0) }
            #expect(read == reference.height)
            pixels = rows
        }
        guard let png = reference.png, reference.maxDifference > 0 else {
            // JPEG XL: the reference decoder's pixels on each SIMD target it was run on (libjxl picks
            // AVX3 or AVX2 at run time, and lossy images differ between them): ours equal one
            #expect(reference.sha256.split(separator: "|").contains(Substring(Fixtures.sha256(pixels))),
                    "\(Fixtures.sha256(pixels)) is none of \(reference.sha256)")
            return
        }
        let expected = try ImageDecoder().decode(Fixtures.data(png)).bitmap
        #expect(expected.width == reference.width && expected.height == reference.height)
        #expect(Fixtures.sha256(expected.pixels) == reference.sha256, "the reference PNG is not the one the table names")
        let largest = zip(pixels, expected.pixels).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        #expect(largest <= reference.maxDifference)
    }

    @Test(arguments: FormatCorpusFile.expecting { $0 == "decode-ok" || $0 == "decode-ok-with-warning" || $0 == "animated" })
    func decodeOKFilesDecode(_ file: FormatCorpusFile) throws {
        let decoded = try ImageDecoder().decode(Fixtures.data(file.path))
        #expect(decoded.bitmap.width == decoded.header.width && decoded.bitmap.height == decoded.header.height)
        #expect(decoded.bitmap.pixels.count == decoded.header.width * decoded.header.height * 4)
        if file.expect == "decode-ok-with-warning" { #expect(!decoded.warnings.isEmpty) }
    }

    @Test(arguments: FormatCorpusFile.expecting { $0.hasPrefix("must-fail") && !$0.hasPrefix("must-fail-or-degrade") && !$0.hasPrefix("must-fail-strict") })
    func mustFailFilesEndInATypedError(_ file: FormatCorpusFile) throws {
        let data = try Fixtures.data(file.path)
        do {
            let decoded = try ImageDecoder().decode(data)
            Issue.record("decoded \(decoded.bitmap.width)x\(decoded.bitmap.height) with warnings \(decoded.warnings)")
        } catch let error as CodecError {
            #expect(!error.message.isEmpty)
            #expect([CodecError.corrupt, .truncated, .unsupported, .tooLarge].contains(error))
        }
    }

    /// Valid files the library refuses with an error that cannot be told from damage: libjxl 0.7
    /// answers `splines.jxl` ("too many pixels covered with splines") with the same plain error it
    /// gives a corrupt file, so it ends `.corrupt`.
    static let refusedAsCorrupt: Set<String> = ["jxl/libjxl-testdata/jxl/splines.jxl"]

    /// `must-fail-or-degrade` and the resource bombs: a typed error or an image within the budget,
    /// never a crash; `unsupported-by-debian-*`: a decode or `.unsupported`.
    @Test(arguments: FormatCorpusFile.expecting { $0.hasPrefix("must-fail-or-degrade") || $0.hasPrefix("unsupported") || $0.hasPrefix("must-refuse") })
    func hostileAndUnsupportedFilesEndTypedOrDecode(_ file: FormatCorpusFile) throws {
        let data = try Fixtures.data(file.path)
        do {
            let decoded = try ImageDecoder().decode(data)
            #expect(decoded.bitmap.width * decoded.bitmap.height <= ImageDecoder.Configuration().pixelBudget)
        } catch let error as CodecError {
            #expect(!error.message.isEmpty)
            if file.expect.hasPrefix("unsupported") {
                #expect(error == (Self.refusedAsCorrupt.contains(file.path) ? .corrupt : .unsupported), "\(error)")
            }
        }
    }
}
