import CObjectGraphRuntime
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Numbers the property wrappers of each object as they initialize, on the current thread.
///
/// Swift initializes a class's stored properties in a fixed order, so the n-th wrapper of an
/// `Employee` is always the same property. Each wrapper keeps its ordinal; the entity maps
/// ordinals to slots once per class, and an accessor then indexes the slot buffer directly.
///
/// The counter and the "recording" flag live in a C thread-local (`og_thread()`), one
/// TLS access per wrapper. While an entity is being described, the wrappers also record
/// what they declare into this thread's recorder.
@usableFromInline
final class ReflectionRecorder {
    /// What the wrappers of the class being described declared, by ordinal.
    @usableFromInline var blueprints: [Int32: PropertyBlueprint] = [:]

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ReflectionRecorder>.fromOpaque(pointer).release() }
        }
        return key
    }()

    /// This thread's recorder (used only while a class is described).
    @usableFromInline
    static var current: ReflectionRecorder {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ReflectionRecorder>.fromOpaque(pointer).takeUnretainedValue()
        }
        let recorder = ReflectionRecorder()
        pthread_setspecific(key, Unmanaged.passRetained(recorder).toOpaque())
        return recorder
    }

    /// Initializes one prototype of a class with recording on: its wrappers' declarations
    /// by ordinal. Nested descriptions (a class described while another is) are kept apart.
    static func describe(_ makePrototype: () -> ManagedObject) -> (ManagedObject, [Int32: PropertyBlueprint]) {
        let recorder = current
        let thread = og_thread()
        let saved = (thread.pointee.next_ordinal, thread.pointee.recording, recorder.blueprints)
        (thread.pointee.next_ordinal, thread.pointee.recording, recorder.blueprints) = (0, 1, [:])
        let prototype = makePrototype()
        let blueprints = recorder.blueprints
        (thread.pointee.next_ordinal, thread.pointee.recording, recorder.blueprints) = saved
        return (prototype, blueprints)
    }

    /// Called by a relationship wrapper's initializer: its ordinal in the object being created.
    @inlinable
    static func nextOrdinal(_ blueprint: () -> PropertyBlueprint) -> Int16 {
        let ordinal = og_take_ordinal()
        if og_is_recording() { current.blueprints[ordinal] = blueprint() }
        return Int16(truncatingIfNeeded: ordinal)
    }
}

/// A property wrapper's storage inside an object: just its ordinal, stored in two bytes
/// (`compactOrdinal`), since every object holds one per wrapper: a class of eight attributes
/// then fits a 128-byte allocation instead of a 144-byte one (docs/performance.md). A class
/// may declare at most 32,768 properties (`ClassLayout` stops loudly past that).
protocol OrdinalProperty {
    var ordinal: Int32 { get }
}
