// Starts DynamoDB Local listening on 127.0.0.1 only. The jar has no option
// for the address: its Jetty server listens on every interface, so any
// machine of the network (and, with the default "-cors *", any web page)
// could read and write the tables. This launcher builds the server exactly
// as the jar's own main does (same arguments), binds its connectors to
// loopback before they open, then starts it. It goes through reflection so
// that it compiles without the jar's classes: `java` runs it as a
// single-file source program (no javac needed; the runtime's jdk.compiler
// module compiles it in memory). See ddblocal.go.
import java.lang.reflect.Field;

public class LoopbackDynamoDBLocal {
    public static void main(String[] args) throws Exception {
        Class<?> runner = Class.forName("software.amazon.dynamodb.services.local.main.ServerRunner");
        Object proxy = runner.getMethod("createServerFromCommandLineArgs", String[].class).invoke(null, (Object) args);
        Field field = proxy.getClass().getDeclaredField("server");
        field.setAccessible(true);
        Object server = field.get(proxy);
        Object[] connectors = (Object[]) server.getClass().getMethod("getConnectors").invoke(server);
        if (connectors.length == 0) {
            throw new IllegalStateException("DynamoDB Local has no connector to bind to 127.0.0.1");
        }
        for (Object connector : connectors) {
            connector.getClass().getMethod("setHost", String.class).invoke(connector, "127.0.0.1");
        }
        proxy.getClass().getMethod("start").invoke(proxy);
    }
}
