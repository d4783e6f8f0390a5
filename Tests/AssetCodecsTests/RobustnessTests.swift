import Foundation
import Testing

import AssetCodecs

/// Damaged input gives a typed error or a bitmap with warnings, never a crash; limits hold.
@Suite struct RobustnessTests {
    static let samples = [
        "png/pngsuite/basi2c08.png", "png/pngsuite/basi6a16.png", "png/pngsuite/basn3p04.png",
        "jpeg/libjpeg-turbo/testorig.jpg", "jpeg/libjpeg-turbo/testimgp.jpg", "jpeg/jpeg-decoder-reftest/ycck.jpg",
        "jpeg/jpeg-decoder-reftest/mozilla/jpg-gray.jpg",
    ]

    @Test(arguments: samples)
    func everyTruncationGivesATypedErrorOrWarnings(_ path: String) throws {
        let data = [UInt8](try Fixtures.data(path))
        let cuts = Set((1..<40).map { data.count * $0 / 40 } + [1, 2, 3, 8, 9, 33, data.count - 1])
        for cut in cuts.sorted() {
            do {
                let decoded = try ImageDecoder().decode(Array(data[..<cut]))
                #expect(!decoded.warnings.isEmpty, "cut at \(cut) decoded without a warning")
            } catch let error as CodecError {
                #expect([CodecError.corrupt, .truncated, .unsupported].contains(error), "cut at \(cut): \(error)")
            }
        }
    }

    @Test func aTruncatedPNGIsTruncated() throws {
        let data = [UInt8](try Fixtures.data("png/pngsuite/basi2c08.png"))
        #expect(throws: CodecError.truncated) { try ImageDecoder().decode(Array(data[..<(data.count / 2)])) }
    }

    @Test func aTruncatedJPEGCompletesWithAPrematureEndWarning() throws {
        let data = [UInt8](try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg"))
        let decoded = try ImageDecoder().decode(Array(data[..<(data.count * 6 / 10)]))
        #expect(decoded.bitmap.width == 227 && decoded.bitmap.height == 149)
        #expect(decoded.warnings.contains { $0.contains("Premature end of JPEG file") })
    }

    @Test func flippedBytesNeverCrash() throws {
        var generator = SystemRandomNumberGenerator()
        for path in Self.samples {
            let data = [UInt8](try Fixtures.data(path))
            for _ in 0..<40 {
                var damaged = data
                for _ in 0..<4 {
                    damaged[Int.random(in: 0..<damaged.count, using: &generator)] = .random(in: 0...255, using: &generator)
                }
                do {
                    let decoded = try ImageDecoder().decode(damaged)
                    #expect(decoded.bitmap.pixels.count == decoded.bitmap.width * decoded.bitmap.height * 4)
                } catch is CodecError {
                }
            }
        }
    }

    @Test func thePixelBudgetIsCheckedOnTheHeader() throws {
        let data = try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg")  // 227x149 = 33823 pixels
        let tight = ImageDecoder(configuration: .init(pixelBudget: 33822))
        #expect(throws: CodecError.tooLarge) { try tight.decode(data) }
        #expect(throws: CodecError.tooLarge) { try tight.header(of: data) }
        #expect(try ImageDecoder(configuration: .init(pixelBudget: 33823)).decode(data).bitmap.width == 227)
        let png = try Fixtures.data("png/pngsuite/basi2c08.png")  // 32x32
        #expect(throws: CodecError.tooLarge) { try ImageDecoder(configuration: .init(pixelBudget: 1023)).decode(png) }
    }

    @Test func theInputByteLimitIsChecked() throws {
        let data = try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg")
        let decoder = ImageDecoder(configuration: .init(maxInputBytes: data.count - 1))
        #expect(throws: CodecError.tooLarge) { try decoder.decode(data) }
    }

    @Test func emptyInputIsATypedError() {
        #expect(throws: CodecError.self) { try ImageDecoder().decode([UInt8]()) }
        #expect(throws: CodecError.self) { try ImageDecoder().decode([UInt8]([0xFF, 0xD8, 0xFF])) }
        #expect(throws: CodecError.self) { try ImageDecoder().decode([UInt8]([0x89, 0x50, 0x4E, 0x47])) }
    }

    @Test func errorsCompareByCodeAndCarryTheLibraryMessage() throws {
        let data = try Fixtures.data("png/pngsuite/xcsn0g01.png")
        let error = #expect(throws: CodecError.self) { try ImageDecoder().decode(data) }
        #expect(error == .corrupt)
        #expect(error?.shortDescription == "corrupt")
        #expect(error?.message.contains("CRC") == true)
        #expect(CodecError.corrupt != CodecError.truncated)
    }
}
