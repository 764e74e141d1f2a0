package io.rein.yarn;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.job.Task;
import org.apache.hadoop.yarn.api.records.Resource;

/**
 * What the AM knows but does not expose to a speculator, read by reflection: a map's split size
 * ({@code MapTaskImpl.getTaskSplitMetaInfo()}) and the job's room in the cluster (its container
 * allocator's headroom and resource limit). Both depend on Hadoop's internals (checked against
 * 3.5.0); where they are not found rein goes on without them and says so once.
 */
final class AmIntrospection {
  private final Object allocator;
  private final Method headroom;
  private final Method limit;
  private final String missing;

  private AmIntrospection(Object allocator, Method headroom, Method limit, String missing) {
    this.allocator = allocator;
    this.headroom = headroom;
    this.limit = limit;
    this.missing = missing;
  }

  /** Finds the RM container allocator behind {@code MRAppMaster.RunningAppContext}. */
  static AmIntrospection of(AppContext context) {
    try {
      Object master = field(context, "this$0");
      Object router = field(master, "containerAllocator");
      Object allocator = field(router, "containerAllocator");
      if (allocator == null) {
        return new AmIntrospection(null, null, null, "the container allocator has not started");
      }
      Method headroom = method(allocator.getClass(), "getAvailableResources");
      Method limit = method(allocator.getClass(), "getResourceLimit");
      return new AmIntrospection(allocator, headroom, limit, null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return new AmIntrospection(null, null, null, e.toString());
    }
  }

  /** Why the cluster view is unavailable, or null when it is available. */
  String missing() {
    return missing;
  }

  /**
   * {total, free} containers of {@code containerMb} the job can use: its resource limit
   * (headroom plus what it holds) and its headroom. Null when unknown.
   */
  long[] slots(long containerMb) {
    if (allocator == null || containerMb <= 0) {
      return null;
    }
    try {
      Resource total = (Resource) limit.invoke(allocator);
      Resource free = (Resource) headroom.invoke(allocator);
      if (total == null || free == null) {
        return null;
      }
      return new long[] {total.getMemorySize() / containerMb, Math.max(0, free.getMemorySize() / containerMb)};
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** Input bytes of a map task's split, or -1 when it cannot be read. */
  static long splitBytes(Task mapTask) {
    try {
      Object meta = method(mapTask.getClass(), "getTaskSplitMetaInfo").invoke(mapTask);
      return (Long) meta.getClass().getMethod("getInputDataLength").invoke(meta);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return -1;
    }
  }

  private static Object field(Object target, String name) throws ReflectiveOperationException {
    for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
      try {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
      } catch (NoSuchFieldException e) {
        // look further up
      }
    }
    throw new NoSuchFieldException(target.getClass().getName() + "." + name);
  }

  private static Method method(Class<?> type, String name) throws NoSuchMethodException {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        Method m = c.getDeclaredMethod(name);
        m.setAccessible(true);
        return m;
      } catch (NoSuchMethodException e) {
        // look further up
      }
    }
    throw new NoSuchMethodException(type.getName() + "." + name + "()");
  }
}
