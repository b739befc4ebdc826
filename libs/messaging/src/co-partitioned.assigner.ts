import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';

/**
 * Co-partitioned assignment: partition `p` of every subscribed topic goes to the same
 * member, so a stream processor that keys its state by partition sees all of a key's
 * records (the same key lands in the same partition number of every topic with the default
 * partitioner and equal partition counts). Partition numbers are dealt round robin over the
 * members sorted by id, so the result depends only on the membership.
 *
 * @param memberIds - ids of the group's members.
 * @param partitionCounts - partitions per subscribed topic.
 * @returns per member, the partitions it owns per topic (every member appears, possibly with none).
 * @throws Error when the topics do not all have the same number of partitions: co-partitioning
 *   is then impossible, and guessing would split a key's state between two owners.
 */
export function assignCoPartitioned(memberIds: readonly string[], partitionCounts: Readonly<Record<string, number>>): Map<string, Record<string, number[]>> {
  const counts = new Set(Object.values(partitionCounts));
  if (counts.size > 1) {
    throw new Error(`co-partitioned topics must have equal partition counts, got ${JSON.stringify(partitionCounts)}`);
  }
  const members = [...memberIds].sort();
  const result = new Map<string, Record<string, number[]>>(members.map((m) => [m, {}]));
  if (members.length === 0) return result;
  const partitions = counts.size === 0 ? 0 : [...counts][0]!;
  for (let p = 0; p < partitions; p++) {
    const owner = result.get(members[p % members.length]!)!;
    for (const topic of Object.keys(partitionCounts)) (owner[topic] ??= []).push(p);
  }
  return result;
}

/** Name under which the members agree on {@link coPartitionedAssigner}. */
export const CO_PARTITIONED_ASSIGNER = 'SettleCoPartitioned';

/**
 * kafkajs partition assigner for {@link assignCoPartitioned}. Every member of the group must
 * use it (the coordinator picks a protocol all members support).
 */
export const coPartitionedAssigner: PartitionAssigner = ({ cluster }) => ({
  name: CO_PARTITIONED_ASSIGNER,
  version: 0,
  async assign({ members, topics }) {
    const counts = Object.fromEntries(topics.map((topic) => [topic, cluster.findTopicPartitionMetadata(topic).length]));
    const assignment = assignCoPartitioned(
      members.map((m) => m.memberId),
      counts,
    );
    return [...assignment].map(([memberId, topicPartitions]) => ({
      memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: topicPartitions, userData: Buffer.alloc(0) }),
    }));
  },
  protocol({ topics }) {
    return {
      name: CO_PARTITIONED_ASSIGNER,
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    };
  },
});
