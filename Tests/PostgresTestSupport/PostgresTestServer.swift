// PostgresTestServer lands here.
