import Foundation

/// A binary property list (`bplist00`) read object by object, keeping the keyed archiver's
/// UIDs (which Foundation's reader on Linux does not give back): enough to walk the keyed
/// archive of a compiled Core Data model.
struct BinaryPropertyList {
    indirect enum Value {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case data(Data)
        case string(String)
        case uid(Int)
        /// Object references, into ``objects``.
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let objects: [Value]
    let top: Int

    init(_ bytes: [UInt8]) throws {
        guard bytes.count > 40, bytes.starts(with: Array("bplist00".utf8)) else { throw Failure(description: "not a binary property list") }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        func integer(at offset: Int, size: Int) throws -> Int {
            guard size > 0, size <= 8, offset >= 0, offset <= bytes.count - size else { throw Failure(description: "an offset out of the file") }
            return bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | Int($1) }
        }
        // A count, offset, length or reference: never negative, and never past the file
        // (what a damaged file holds there is refused here, not used as an index).
        func position(at offset: Int, size: Int) throws -> Int {
            let value = try integer(at: offset, size: size)
            guard value >= 0, value < bytes.count else { throw Failure(description: "an offset or length out of the file") }
            return value
        }
        let count = try position(at: trailer + 8, size: 8)
        top = try position(at: trailer + 16, size: 8)
        let table = try position(at: trailer + 24, size: 8)
        guard top < count else { throw Failure(description: "a trailer that does not fit the file") }
        var objects: [Value] = []
        objects.reserveCapacity(count)
        for index in 0..<count {
            var offset = try position(at: table + index * offsetSize, size: offsetSize)
            guard offset < trailer else { throw Failure(description: "an object out of the file") }
            let marker = bytes[offset]
            offset += 1
            var info = Int(marker & 0x0F)
            let kind = marker >> 4
            if [0x4, 0x5, 0x6, 0xA, 0xC, 0xD].contains(kind) && info == 0x0F {
                guard offset < trailer, bytes[offset] >> 4 == 0x1 else { throw Failure(description: "a length that is not an integer") }
                let size = 1 << Int(bytes[offset] & 0x0F)
                info = try position(at: offset + 1, size: size)
                offset += 1 + size
            }
            func references(_ number: Int, at start: Int) throws -> [Int] {
                try (0..<number).map { index in
                    let reference = try position(at: start + index * referenceSize, size: referenceSize)
                    guard reference < count else { throw Failure(description: "a reference to an object the file does not hold") }
                    return reference
                }
            }
            switch kind {
            case 0x0: objects.append(info == 0x9 ? .bool(true) : info == 0x8 ? .bool(false) : .null)
            case 0x1:
                let size = 1 << info
                let raw = try integer(at: offset, size: min(size, 8))
                objects.append(.integer(size == 8 ? Int64(bitPattern: UInt64(UInt(bitPattern: raw))) : Int64(raw)))
            case 0x2:
                let size = 1 << info
                let raw = UInt64(UInt(bitPattern: try integer(at: offset, size: size)))
                objects.append(.real(size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw)))
            case 0x3: objects.append(.real(Double(bitPattern: UInt64(UInt(bitPattern: try integer(at: offset, size: 8))))))
            case 0x4:
                guard offset + info <= trailer else { throw Failure(description: "data out of the file") }
                objects.append(.data(Data(bytes[offset..<(offset + info)])))
            case 0x5:
                guard offset + info <= trailer else { throw Failure(description: "a string out of the file") }
                objects.append(.string(String(decoding: bytes[offset..<(offset + info)], as: UTF8.self)))
            case 0x6:
                guard offset + 2 * info <= trailer else { throw Failure(description: "a string out of the file") }
                let units = (0..<info).map { UInt16(bytes[offset + 2 * $0]) << 8 | UInt16(bytes[offset + 2 * $0 + 1]) }
                objects.append(.string(String(decoding: units, as: UTF16.self)))
            case 0x8: objects.append(.uid(try integer(at: offset, size: info + 1)))
            case 0xA, 0xC: objects.append(.array(try references(info, at: offset)))
            case 0xD:
                objects.append(.dictionary(keys: try references(info, at: offset), values: try references(info, at: offset + info * referenceSize)))
            default: throw Failure(description: "an object of an unknown kind (\(kind))")
            }
        }
        self.objects = objects
    }

    /// The dictionary at `index`, with string keys.
    func dictionary(_ index: Int) -> [String: Value] {
        guard index < objects.count, case .dictionary(let keys, let values) = objects[index] else { return [:] }
        var result: [String: Value] = [:]
        for (key, value) in zip(keys, values) {
            if key < objects.count, case .string(let name) = objects[key], value < objects.count { result[name] = objects[value] }
        }
        return result
    }
}
