import CSQLite
import Foundation

/// Memory for the text parameters of one row, so that they are bound without a copy by
/// SQLite (`SQLITE_STATIC`) and without an allocation per value.
///
/// The bytes of a row stay in place until the next `startRow()`, which comes after the
/// statement has stepped; whoever binds from it clears the statement's bindings before
/// `deallocate()`. A value that does not fit is bound with a copy (`SQLITE_TRANSIENT`)
/// and the next row gets a larger buffer.
struct TextArena {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    private var wanted = 0

    init(capacity: Int = 1024) {
        self.capacity = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
    }

    func deallocate() { base.deallocate() }

    /// Starts the values of a new row: the previous row's bytes may be overwritten.
    @inline(__always)
    mutating func startRow() {
        if wanted > capacity {
            base.deallocate()
            while capacity < wanted { capacity *= 2 }
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        }
        used = 0
        wanted = 0
    }

    @inline(__always)
    mutating func bind(_ text: String, to statement: SQLiteStatement, at index: Int32) throws {
        var text = text
        try text.withUTF8 { bytes in
            let count = bytes.count
            wanted += count
            if used &+ count <= capacity {
                let target = base + used
                if count > 0 { target.copyMemory(from: bytes.baseAddress.unsafelyUnwrapped, byteCount: count) }
                used &+= count
                try statement.bindStaticText(target.assumingMemoryBound(to: CChar.self), count: count, at: index)
            } else {
                try statement.bindTransientText(bytes, at: index)
            }
        }
    }
}

/// Binds slot values of saved objects: object IDs as their primary keys (temporary ones
/// through the save's keys), text through a `TextArena`.
struct SlotBinder {
    let layout: StoreLayout
    let keys: TemporaryKeys
    var arena = TextArena()

    init(layout: StoreLayout, keys: TemporaryKeys) {
        self.layout = layout
        self.keys = keys
    }

    func deallocate() { arena.deallocate() }

    @inline(__always)
    mutating func bind(_ value: UnsafePointer<SlotValue>, to statement: SQLiteStatement, at index: Int32) throws {
        switch value.pointee {
        case .null, .unloaded, .objects: try statement.bindNull(at: index)
        case .int(let v): try statement.bindInt64(v, at: index)
        case .double(let v): try statement.bindDouble(v, at: index)
        case .text(let v): try arena.bind(v, to: statement, at: index)
        case .blob(let v): try statement.bind(.blob(v), at: index)
        case .uuid(let v): try statement.bind(.blob(v.blobData), at: index)
        case .decimal(let v): try statement.bindDouble(v.storedDouble, at: index)
        case .url(let v): try arena.bind(v.absoluteString, to: statement, at: index)
        case .object(let id): try statement.bindInt64(keys.storedKey(id), at: index)
        }
    }

    /// Binds the `Z_ENT` of a to-one destination (NULL for none).
    @inline(__always)
    func bindEntityNumber(of value: UnsafePointer<SlotValue>, to statement: SQLiteStatement, at index: Int32) throws {
        if case .object(let id) = value.pointee {
            try statement.bindInt64(layout.mappings[id.entity.index].entityNumber, at: index)
        } else {
            try statement.bindNull(at: index)
        }
    }
}
