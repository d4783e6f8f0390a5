import Foundation
import Testing

import AssetCodecs

@Suite struct BufferReuseTests {
    @Test(arguments: ["jpeg/libjpeg-turbo/testorig.jpg", "png/pngsuite/basi6a08.png", "jpeg/jpeg-decoder-reftest/ycck.jpg"])
    func decodingIntoAReusedBufferGivesTheSamePixels(_ path: String) throws {
        let data = try Fixtures.data(path)
        let decoder = ImageDecoder()
        let expected = try decoder.decode(data).bitmap
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 64)
        defer { buffer.deallocate() }
        for _ in 0..<3 {
            buffer.initializeMemory(as: UInt8.self, repeating: 0xAB)
            let summary = try decoder.decode(data, into: buffer)
            #expect(summary.width == expected.width && summary.height == expected.height)
            #expect(Array(buffer[0..<expected.pixels.count]) == expected.pixels)
        }
    }

    @Test func paddedRowsKeepThePaddingUntouched() throws {
        let data = try Fixtures.data("png/pngsuite/basn0g08.png")  // 32x32
        let expected = try ImageDecoder().decode(data).bitmap
        let rowBytes = 32 * 4 + 16
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: rowBytes * 32, alignment: 64)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xAB)
        let summary = try ImageDecoder().decode(data, into: buffer, bytesPerRow: rowBytes)
        #expect(summary.bytesPerRow == rowBytes)
        for y in 0..<32 {
            #expect(Array(buffer[(y * rowBytes)..<(y * rowBytes + 128)]) == Array(expected.pixels[(y * 128)..<(y * 128 + 128)]))
            if y < 31 {
                #expect(buffer[(y * rowBytes + 128)..<((y + 1) * rowBytes)].allSatisfy { $0 == 0xAB })
            }
        }
    }

    @Test func aBufferTooSmallIsATypedError() throws {
        let data = try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 227 * 149 * 4 - 1, alignment: 64)
        defer { buffer.deallocate() }
        #expect(throws: CodecError.bufferTooSmall) { try ImageDecoder().decode(data, into: buffer) }
        #expect(throws: CodecError.bufferTooSmall) { try ImageDecoder().decode(data, into: buffer, bytesPerRow: 10) }
    }

    @Test func reusedBuffersWorkWithMaxDimension() throws {
        let data = try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg")
        let decoder = ImageDecoder(configuration: .init(maxDimension: 100))
        let expected = try decoder.decode(data).bitmap
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: expected.cost, alignment: 64)
        defer { buffer.deallocate() }
        let summary = try decoder.decode(data, into: buffer)
        #expect(summary.width == 100 && summary.height == 66)
        #expect(Array(buffer) == expected.pixels)
    }
}
