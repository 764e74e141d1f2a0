package io.rein.yarn;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.v2.api.records.TaskType;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.job.Task;
import org.apache.hadoop.mapreduce.v2.app.rm.ResourceCalculatorUtils;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.proto.YarnServiceProtos.SchedulerResourceTypes;

/**
 * What the AM knows but does not expose to a speculator, read by reflection: a map's split size
 * ({@code MapTaskImpl.getTaskSplitMetaInfo()}) and the job's room in the cluster (its container
 * allocator's headroom and resource limit). Both depend on Hadoop's internals (checked against
 * 3.4 and 3.5.0); where they are not found rein goes on without them and says so once.
 */
final class AmIntrospection {
  private final Object allocator;
  private final Method headroom;
  private final Method limit;
  private final Method resourceTypes;

  AmIntrospection(Object allocator) throws NoSuchMethodException {
    this.allocator = allocator;
    this.headroom = method(allocator.getClass(), "getAvailableResources");
    this.limit = method(allocator.getClass(), "getResourceLimit");
    this.resourceTypes = method(allocator.getClass(), "getSchedulerResourceTypes");
  }

  /**
   * The RM container allocator of the AM that runs this job, or null while it does not exist yet
   * (the speculator starts before it). The AM's {@code AppContext} is an inner class of
   * {@code MRAppMaster} with no accessor for its master, so that step is reflection; the master's
   * public {@code getContainerAllocator()} returns a router whose allocator is a private field
   * (created when the router starts), read by reflection too unless the master returned the
   * allocator itself (as Hadoop's test AMs do).
   */
  static Object findAllocator(AppContext context) throws ReflectiveOperationException {
    Object master = field(context, "this$0");
    Object router = master.getClass().getMethod("getContainerAllocator").invoke(master);
    if (router == null) {
      return null;
    }
    try {
      method(router.getClass(), "getResourceLimit");
      return router;
    } catch (NoSuchMethodException e) {
      return field(router, "containerAllocator");
    }
  }

  /**
   * {total, free} containers of {@code container} the job can use: its resource limit (headroom
   * plus what it holds) and its headroom, counted as Hadoop's allocator counts them (memory, and
   * vcores when the scheduler accounts for them). Null when unknown.
   */
  long[] slots(Resource container) {
    try {
      Resource total = (Resource) limit.invoke(allocator);
      Resource free = (Resource) headroom.invoke(allocator);
      @SuppressWarnings("unchecked")
      EnumSet<SchedulerResourceTypes> types = (EnumSet<SchedulerResourceTypes>) resourceTypes.invoke(allocator);
      if (total == null || free == null || types == null) {
        return null;
      }
      return new long[] {
        ResourceCalculatorUtils.computeAvailableContainers(total, container, types),
        Math.max(0, ResourceCalculatorUtils.computeAvailableContainers(free, container, types))
      };
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The container a task of this type asks for, as the AM's {@code TaskAttemptImpl} sizes it:
   * memory from {@code JobConf.getMemoryRequired} (which turns mapred-default's -1 into 1024 MB,
   * or a size derived from the task's -Xmx), vcores from {@code mapreduce.<type>.cpu.vcores}.
   * Resource-type overrides ({@code mapreduce.<type>.resource.*}) are not read.
   */
  static Resource container(Configuration conf, TaskType type) {
    JobConf job = conf instanceof JobConf ? (JobConf) conf : new JobConf(conf);
    boolean map = type == TaskType.MAP;
    int mb = job.getMemoryRequired(map ? org.apache.hadoop.mapreduce.TaskType.MAP
        : org.apache.hadoop.mapreduce.TaskType.REDUCE);
    int vcores = map ? conf.getInt(MRJobConfig.MAP_CPU_VCORES, MRJobConfig.DEFAULT_MAP_CPU_VCORES)
        : conf.getInt(MRJobConfig.REDUCE_CPU_VCORES, MRJobConfig.DEFAULT_REDUCE_CPU_VCORES);
    return Resource.newInstance(mb, vcores);
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
