import Foundation
import GRDB
import ObjectGraph

// The user-style baseline's model: one plain entity of 8 columns — int64 id, two
// texts, int, double, date, int64, bool — and nothing else, as each way spells it.

/// The ManagedRecord entity: seven attributes; `Z_PK` is the int64 id.
final class Person: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Double = 0
    @Attribute var hired: Date = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var code: Int64 = 0
    @Attribute var active: Bool = false
}

/// A row of the plain table, as the raw loop reads it.
struct PlainPerson {
    var id: Int64
    var firstName: String
    var lastName: String
    var age: Int
    var salary: Double
    var hired: Date
    var code: Int64
    var active: Bool
}

/// The same row as a GRDB user writes it: a record with hand-written encoding and decoding.
struct PersonRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "person"

    var id: Int64
    var firstName: String
    var lastName: String
    var age: Int
    var salary: Double
    var hired: Date
    var code: Int64
    var active: Bool

    init(id: Int64, firstName: String, lastName: String, age: Int, salary: Double, hired: Date, code: Int64, active: Bool) {
        self.id = id; self.firstName = firstName; self.lastName = lastName; self.age = age
        self.salary = salary; self.hired = hired; self.code = code; self.active = active
    }

    init(row: Row) throws {
        id = row[0]
        firstName = row[1]
        lastName = row[2]
        age = row[3]
        salary = row[4]
        hired = Date(timeIntervalSinceReferenceDate: row[5])
        code = row[6]
        active = row[7]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["firstName"] = firstName
        container["lastName"] = lastName
        container["age"] = age
        container["salary"] = salary
        container["hired"] = hired.timeIntervalSinceReferenceDate
        container["code"] = code
        container["active"] = active
    }
}

/// The plain table the raw loop and GRDB use, and how to read a table's content back.
enum PlainTable {
    static let create = """
        CREATE TABLE person (id INTEGER PRIMARY KEY, firstName TEXT NOT NULL, lastName TEXT NOT NULL, \
        age INTEGER NOT NULL, salary REAL NOT NULL, hired REAL NOT NULL, code INTEGER NOT NULL, active INTEGER NOT NULL)
        """
    static let columns = "id, firstName, lastName, age, salary, hired, code, active"
    /// The filter of the predicate fetch and count: `age > 40 AND lastName BEGINSWITH 'S'`.
    static let condition = "age > ? AND substr(lastName, 1, 1) = ?"

    /// What is in `table` (untimed): the checksum a fetch of every row gives.
    static func summary(path: String, table: String, prefix: String) throws -> Checksum {
        let db = try RawDatabase(path: path)
        func column(_ name: String) -> String { prefix + name.uppercased() }
        let statement = try db.prepare("""
            SELECT count(*), total(\(column("age"))), total(\(column("salary"))), \
            total(length(\(column("firstName"))) + length(\(column("lastName")))), total(\(column("hired"))), \
            total(\(column("active"))), (SELECT total(c * c) FROM (SELECT count(*) AS c FROM \(table) GROUP BY \(column("code")))) \
            FROM \(table)
            """)
        _ = try statement.step()
        return Checksum(count: Int(statement.int64(0)), ageSum: Int(statement.int64(1)), salarySum: statement.double(2),
                        nameBytes: Int(statement.int64(3)), hiredSum: statement.double(4), activeCount: Int(statement.int64(5)),
                        departmentSquares: Int(statement.int64(6)))
    }
}
