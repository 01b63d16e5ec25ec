// Connect opens one pgjdbc connection with the given properties (TLS,
// password), prints whether it is encrypted and the user, or the SQLSTATE
// of the failure. Usage: java -cp postgresql.jar Connect.java JDBC-URL
import java.sql.*;

public class Connect {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0]);
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            System.out.println("connected " + rs.getString(1));
        } catch (SQLException e) {
            System.out.println("error " + e.getSQLState());
        }
    }
}
