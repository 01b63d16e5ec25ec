// Clients drives pgjdbc (Debian's libpostgresql-jdbc-java) through ordinary
// work and prints a transcript of "## check" sections; tests/clients
// compares it with the transcript PostgreSQL 15 produces.
// Usage: java -cp postgresql.jar Clients.java postgres://user@host:port/db
import java.math.BigDecimal;
import java.net.URI;
import java.sql.*;
import java.util.*;

public class Clients {
    interface Check { void run(Connection c) throws Exception; }

    static Connection conn;
    static String url;
    static Properties props;

    public static void main(String[] args) throws Exception {
        URI u = new URI(args[0]);
        url = "jdbc:postgresql://" + u.getHost() + ":" + u.getPort() + u.getPath();
        props = new Properties();
        props.setProperty("user", u.getUserInfo());
        conn = DriverManager.getConnection(url, props);
        if (args.length > 1 && args[1].equals("sources")) {
            sources();
            conn.close();
            return;
        }
        check("connect", c -> {
            DatabaseMetaData md = c.getMetaData();
            System.out.println(md.getDatabaseProductName() + " major=" + md.getDatabaseMajorVersion());
        });
        check("getSchemas", c -> {
            List<String> names = new ArrayList<>();
            try (ResultSet rs = c.getMetaData().getSchemas()) {
                while (rs.next()) names.add(rs.getString("TABLE_SCHEM"));
            }
            for (String s : List.of("public", "pg_catalog", "information_schema"))
                System.out.println(s + " " + names.contains(s));
        });
        check("getTables", c -> print(c.getMetaData().getTables(null, "public", "%", null),
                "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS"));
        check("getTables views", c -> print(c.getMetaData().getTables(null, "public", "%", new String[]{"VIEW", "MATERIALIZED VIEW"}),
                "TABLE_NAME", "TABLE_TYPE"));
        for (String t : List.of("customers", "orders", "big_orders", "customer_totals"))
            check("getColumns " + t, c -> print(c.getMetaData().getColumns(null, "public", t, "%"),
                    "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE",
                    "IS_NULLABLE", "COLUMN_DEF", "ORDINAL_POSITION", "IS_AUTOINCREMENT", "REMARKS"));
        for (String t : List.of("customers", "orders", "order_lines"))
            check("getPrimaryKeys " + t, c -> print(c.getMetaData().getPrimaryKeys(null, "public", t),
                    "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME"));
        check("getImportedKeys orders", c -> print(c.getMetaData().getImportedKeys(null, "public", "orders"),
                "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "KEY_SEQ", "UPDATE_RULE", "DELETE_RULE", "FK_NAME", "PK_NAME"));
        check("getImportedKeys order_lines", c -> print(c.getMetaData().getImportedKeys(null, "public", "order_lines"),
                "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "KEY_SEQ", "FK_NAME", "PK_NAME"));
        check("getExportedKeys customers", c -> print(c.getMetaData().getExportedKeys(null, "public", "customers"),
                "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "FK_NAME"));
        for (String t : List.of("customers", "orders", "order_lines"))
            check("getIndexInfo " + t, c -> print(c.getMetaData().getIndexInfo(null, "public", t, false, false),
                    "TABLE_NAME", "NON_UNIQUE", "INDEX_NAME", "TYPE", "ORDINAL_POSITION", "COLUMN_NAME", "ASC_OR_DESC"));
        check("getTypeInfo", c -> {
            Map<String, Integer> types = new TreeMap<>();
            try (ResultSet rs = c.getMetaData().getTypeInfo()) {
                while (rs.next()) types.put(rs.getString("TYPE_NAME"), rs.getInt("DATA_TYPE"));
            }
            for (String n : List.of("bool", "int2", "int4", "int8", "float4", "float8", "numeric", "text", "varchar",
                    "bpchar", "bytea", "date", "timestamp", "timestamptz", "uuid", "json", "jsonb", "_int4", "_text"))
                System.out.println(n + " " + types.get(n));
        });
        check("getFunctions", c -> print(c.getMetaData().getFunctions(null, "pg_catalog", "version"),
                "FUNCTION_SCHEM", "FUNCTION_NAME", "FUNCTION_TYPE"));
        check("getProcedures", c -> print(c.getMetaData().getProcedures(null, "pg_catalog", "now"),
                "PROCEDURE_SCHEM", "PROCEDURE_NAME", "PROCEDURE_TYPE"));
        check("ResultSetMetaData", Clients::resultSetMetaData);
        check("ddl", c -> {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE jdbc_types (id int PRIMARY KEY, i2 smallint, i8 bigint, f4 real, f8 double precision, "
                        + "n numeric(12,3), b boolean, t text, vc varchar(10), d date, ts timestamp, tstz timestamptz, "
                        + "by bytea, u uuid, j jsonb, ia int[], ta text[])");
                System.out.println("created");
            }
        });
        check("prepared insert", Clients::preparedInsert);
        check("prepared select", Clients::preparedSelect);
        check("batch", Clients::batch);
        check("transactions", Clients::transactions);
        check("isolation levels", Clients::isolationLevels);
        check("fetch size", Clients::fetchSize);
        check("listen notify", Clients::listenNotify);
        check("errors", c -> {
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT * FROM no_such_table");
            } catch (SQLException e) {
                System.out.println(e.getSQLState());
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO customers (id, name) VALUES (?, ?)")) {
                ps.setInt(1, 1);
                ps.setString(2, "dup");
                ps.executeUpdate();
            } catch (SQLException e) {
                System.out.println(e.getSQLState());
            }
        });
        check("enum", Clients::enumType);
        conn.close();
    }

    // enumType uses an enum type as ORMs over pgjdbc do: labels bound as
    // strings (cast, or Types.OTHER), getColumns and ResultSetMetaData.
    static void enumType(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TYPE jdbc_mood AS ENUM ('sad', 'ok', 'happy')");
            s.execute("CREATE TABLE jdbc_moods (id int PRIMARY KEY, m jdbc_mood)");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdbc_moods VALUES (?, ?::jdbc_mood)")) {
            ps.setInt(1, 1);
            ps.setString(2, "happy");
            ps.executeUpdate();
            ps.setInt(1, 2);
            ps.setString(2, "sad");
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdbc_moods VALUES (?, ?)")) {
            ps.setInt(1, 3);
            ps.setObject(2, "ok", Types.OTHER);
            ps.executeUpdate();
        }
        print(c.getMetaData().getColumns(null, "public", "jdbc_moods", "%"), "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME");
        try (PreparedStatement ps = c.prepareStatement("SELECT id, m FROM jdbc_moods WHERE m > ?::jdbc_mood ORDER BY m")) {
            ps.setString(1, "sad");
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                System.out.println(md.getColumnTypeName(2) + " " + md.getColumnType(2));
                while (rs.next())
                    System.out.println(rs.getInt(1) + "|" + rs.getString(2));
            }
        }
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE jdbc_moods");
            s.execute("DROP TYPE jdbc_mood");
        }
    }

    // sources checks Eddy's sources, which PostgreSQL does not have:
    // pgjdbc lists them as foreign tables with their columns; reading one
    // directly is refused (0A000: its events are not stored).
    static void sources() {
        check("source tables", c -> print(c.getMetaData().getTables(null, "public", "%", new String[]{"FOREIGN TABLE"}),
                "TABLE_NAME", "TABLE_TYPE"));
        check("source columns", c -> print(c.getMetaData().getColumns(null, "public", "bid", "%"),
                "COLUMN_NAME", "TYPE_NAME", "ORDINAL_POSITION"));
        check("source read", c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT auction, price FROM bid LIMIT 1")) {
                ResultSetMetaData md = rs.getMetaData();
                for (int i = 1; i <= md.getColumnCount(); i++)
                    System.out.println(md.getColumnName(i) + "|" + md.getColumnTypeName(i) + "|" + md.getTableName(i));
            }
        });
    }

    // check prints a section header and runs one check; an exception is
    // printed (SQLSTATE and message) and the next check runs.
    static void check(String name, Check k) {
        System.out.println("## " + name);
        try {
            if (!conn.getAutoCommit()) conn.setAutoCommit(true);
            k.run(conn);
        } catch (SQLException e) {
            System.out.println("error " + e.getSQLState() + ": " + e.getMessage().split("\n")[0]);
        } catch (Exception e) {
            System.out.println("error: " + e);
        }
    }

    // print prints the named columns of every row of rs, "|"-separated.
    static void print(ResultSet rs, String... cols) throws SQLException {
        try (rs) {
            int n = 0;
            while (rs.next()) {
                StringBuilder b = new StringBuilder();
                for (String col : cols) {
                    if (b.length() > 0) b.append('|');
                    b.append(rs.getString(col));
                }
                System.out.println(b);
                n++;
            }
            System.out.println(n + " rows");
        }
    }

    static void resultSetMetaData(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT c.id, c.name, c.email, c.score, o.amount, o.tags, t.total, "
                     + "c.id + 1 AS next FROM customers c JOIN orders o ON o.customer_id = c.id "
                     + "JOIN customer_totals t ON t.customer_id = c.id WHERE false")) {
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                System.out.println(md.getColumnLabel(i) + "|" + md.getColumnName(i) + "|" + md.getColumnTypeName(i) + "|"
                        + md.getColumnType(i) + "|" + md.isNullable(i) + "|" + md.getTableName(i) + "|"
                        + md.getSchemaName(i) + "|" + md.getPrecision(i) + "|" + md.getScale(i) + "|"
                        + md.isAutoIncrement(i) + "|" + md.getColumnClassName(i));
            }
        }
    }

    static void preparedInsert(Connection c) throws SQLException {
        String sql = "INSERT INTO jdbc_types VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int id = 1; id <= 7; id++) { // past prepareThreshold (5): named statements, binary results
                ps.setInt(1, id);
                ps.setShort(2, (short) -id);
                ps.setLong(3, 9000000000L + id);
                ps.setFloat(4, 1.5f * id);
                ps.setDouble(5, 2.25 * id);
                ps.setBigDecimal(6, new BigDecimal("12345.678").add(BigDecimal.valueOf(id)));
                ps.setBoolean(7, id % 2 == 0);
                ps.setString(8, "text " + id + " é'\"");
                ps.setString(9, "vc" + id);
                ps.setDate(10, java.sql.Date.valueOf("2024-03-0" + id));
                ps.setTimestamp(11, java.sql.Timestamp.valueOf("2024-03-04 05:06:07.25"));
                ps.setObject(12, java.time.OffsetDateTime.parse("2024-03-04T05:06:07.5Z"));
                ps.setBytes(13, new byte[]{0, 1, (byte) 255, (byte) id});
                ps.setObject(14, UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1" + id));
                ps.setString(15, "{\"k\": [" + id + ", null]}");
                ps.setArray(16, c.createArrayOf("int4", new Integer[]{id, null, 3}));
                ps.setArray(17, c.createArrayOf("text", new String[]{"x", "y z", null}));
                System.out.println("inserted " + ps.executeUpdate());
            }
            ps.setInt(1, 8);
            for (int i = 2; i <= 17; i++) ps.setNull(i, Types.NULL);
            System.out.println("inserted nulls " + ps.executeUpdate());
        }
    }

    static void preparedSelect(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT * FROM jdbc_types WHERE id >= ? ORDER BY id")) {
            for (int round = 0; round < 6; round++) {
                ps.setInt(1, 6);
                try (ResultSet rs = ps.executeQuery()) {
                    ResultSetMetaData md = rs.getMetaData();
                    while (rs.next()) {
                        if (round < 5) continue;
                        StringBuilder b = new StringBuilder();
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            Object o = rs.getObject(i);
                            if (o instanceof java.sql.Array a) o = Arrays.toString((Object[]) a.getArray());
                            if (o instanceof byte[] bs) o = Arrays.toString(bs);
                            b.append(md.getColumnName(i)).append('=').append(o).append(' ');
                        }
                        System.out.println(b.toString().trim());
                        System.out.println("getBigDecimal=" + rs.getBigDecimal("n") + " getTimestamp=" + rs.getTimestamp("ts")
                                + " getDate=" + rs.getDate("d"));
                    }
                }
            }
        }
    }

    static void batch(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_batch (id int PRIMARY KEY, v text)");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdbc_batch VALUES (?, ?)")) {
            for (int i = 0; i < 50; i++) {
                ps.setInt(1, i);
                ps.setString(2, "v" + i);
                ps.addBatch();
            }
            System.out.println("batch counts " + Arrays.stream(ps.executeBatch()).sum());
        }
        try (Statement s = c.createStatement()) {
            s.addBatch("UPDATE jdbc_batch SET v = 'odd' WHERE id % 2 = 1");
            s.addBatch("DELETE FROM jdbc_batch WHERE id >= 40");
            System.out.println("statement batch " + Arrays.toString(s.executeBatch()));
            print(s.executeQuery("SELECT v, count(*) FROM jdbc_batch GROUP BY v HAVING count(*) > 1 ORDER BY v"), "v", "count");
        }
    }

    static void transactions(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO jdbc_batch VALUES (100, 'rolled back')");
            c.rollback();
            s.executeUpdate("INSERT INTO jdbc_batch VALUES (101, 'committed')");
            c.commit();
            try {
                s.executeUpdate("INSERT INTO jdbc_batch VALUES (101, 'duplicate')");
            } catch (SQLException e) {
                System.out.println("duplicate " + e.getSQLState());
                c.rollback();
            }
            print(s.executeQuery("SELECT id, v FROM jdbc_batch WHERE id >= 100 ORDER BY id"), "id", "v");
            c.commit();
        }
        System.out.println("isolation " + c.getTransactionIsolation());
    }

    // isolationLevels asks for REPEATABLE READ and SERIALIZABLE as
    // applications do: a block's count does not see another connection's
    // insert until it commits.
    static void isolationLevels(Connection c) throws SQLException {
        try (Connection other = DriverManager.getConnection(url, props); Statement o = other.createStatement()) {
            int id = 200;
            for (int level : new int[]{Connection.TRANSACTION_REPEATABLE_READ, Connection.TRANSACTION_SERIALIZABLE}) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(level);
                try (Statement s = c.createStatement()) {
                    ResultSet r = s.executeQuery("SHOW transaction_isolation");
                    r.next();
                    String name = r.getString(1);
                    int before = countBatch(s);
                    o.executeUpdate("INSERT INTO jdbc_batch VALUES (" + (id++) + ", 'concurrent')");
                    int again = countBatch(s);
                    c.commit();
                    int after = countBatch(s);
                    c.commit();
                    System.out.println(c.getTransactionIsolation() + " " + name + " stable=" + (before == again) + " later=" + (after - before));
                }
            }
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            o.executeUpdate("DELETE FROM jdbc_batch WHERE v = 'concurrent'");
        }
    }

    static int countBatch(Statement s) throws SQLException {
        ResultSet r = s.executeQuery("SELECT count(*) FROM jdbc_batch");
        r.next();
        return r.getInt(1);
    }

    static void listenNotify(Connection c) throws Exception {
        try (Connection other = DriverManager.getConnection(url, props);
             Statement s = c.createStatement(); Statement o = other.createStatement()) {
            s.execute("LISTEN jdbc_channel");
            o.execute("NOTIFY jdbc_channel, 'hello'");
            int otherPid = other.unwrap(org.postgresql.PGConnection.class).getBackendPID();
            List<String> got = new ArrayList<>();
            org.postgresql.PGConnection pg = c.unwrap(org.postgresql.PGConnection.class);
            for (int i = 0; i < 50 && got.isEmpty(); i++) {
                org.postgresql.PGNotification[] ns = pg.getNotifications(100);
                if (ns != null) {
                    for (org.postgresql.PGNotification n : ns)
                        got.add(n.getName() + "|" + n.getParameter() + "|" + (n.getPID() == otherPid));
                }
            }
            System.out.println(got);
            s.execute("UNLISTEN *");
        }
    }

    static void fetchSize(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM jdbc_batch ORDER BY id")) {
            ps.setFetchSize(7);
            int n = 0, sum = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) { n++; sum += rs.getInt(1); }
            }
            System.out.println("rows " + n + " sum " + sum);
        }
        c.commit();
    }
}
