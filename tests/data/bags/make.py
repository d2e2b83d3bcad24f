"""Writes the ROS 2 test bag with rosbags (a rosbag2 writer no one here wrote):
python3 tests/data/bags/make.py   (pip install rosbags)

drive/: a rosbag2 bag in MCAP storage, 6 s of a drive east along y = 0 at 3 m/s from x = 0,
toward a wall across the lane at x = 20 m:
  /odom                 nav_msgs/msg/Odometry at 50 Hz (pose, twist), stamps from t = 100 s
  /scan                 sensor_msgs/msg/LaserScan at 10 Hz, 720 rays from -135 to 135 deg:
                        the wall (20 - x) / cos(a) m for |a| <= 30 deg, +inf elsewhere,
                        NaN in ray 0 (REP-117: no valid measurement)
  /vehicle/ulc_cmd      ds_dbw_msgs/msg/UlcCmd at 50 Hz: 3 m/s (cmd_type 1)
  /vehicle/steering_cmd ds_dbw_msgs/msg/SteeringCmd at 50 Hz: curvature 0 (cmd_type 3)
  /vehicle/gear_report  ds_dbw_msgs/msg/GearReport at 10 Hz: gear 4 (high)
  /diagnostics_text     std_msgs/msg/String at 1 Hz (a topic the replay ignores)
The ds_dbw_msgs types are registered from the definitions acres ships (data/msgs/), and
rosbags writes each definition into the bag's schema records.

drive_db3/: the same drive in sqlite3 storage.
pose_twist/: PoseStamped at 10 Hz with a 1.5 s gap and TwistStamped at 50 Hz (below).
whole_seconds/: odometry at 50 Hz whose header stamps are whole seconds (below).
unfinished/, unfinished_db3/: a 16 s drive's folder copied 14 s into the recording with
the writer still open (no metadata.yaml; the MCAP without its summary and footer, its
last chunk unwritten; the sqlite3 file with its rollback journal).

ROS 1 (rosbags' rosbag1 writer, format 2.0, the ROS 1 Noetic types with Header.seq):
ros1/drive.bag, drive_bz2.bag, drive_lz4.bag: the drive with chunks uncompressed, bz2
and lz4 (lz4 frames, as roslz4 writes them); the connection headers carry each type's
full definition. ros1/unfinished.bag: a 16 s drive copied 14 s in, the writer open (the
bag header's index position still 0, no index or connection records at the end).

Compressed rosbag2 (zstd, as rosbag2 writes it): zstd_message/ and zstd_message_db3/
(each message's CDR compressed on its own; metadata compression_mode: MESSAGE) and
zstd_file/, zstd_file_db3/ (the whole storage file, drive.mcap.zstd; mode FILE).
"""
import math
import shutil
from pathlib import Path

import numpy as np
from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

here = Path(__file__).parent
msgs = here.parent.parent.parent / "data" / "msgs" / "ds_dbw_msgs"
ts = get_typestore(Stores.ROS2_HUMBLE)
for name in ["UlcCmd", "SteeringCmd", "GearReport"]:
    ts.register(get_types_from_msg((msgs / f"{name}.msg").read_text(), f"ds_dbw_msgs/msg/{name}"))

T = ts.types
Header, Time = T["std_msgs/msg/Header"], T["builtin_interfaces/msg/Time"]
Odometry, LaserScan = T["nav_msgs/msg/Odometry"], T["sensor_msgs/msg/LaserScan"]
G = T  # geometry types
String = T["std_msgs/msg/String"]


def header(t):
    sec = int(t)
    return Header(stamp=Time(sec=sec, nanosec=int(round((t - sec) * 1e9))), frame_id="base_link")


def odom(t, x):
    pose = G["geometry_msgs/msg/Pose"](
        position=G["geometry_msgs/msg/Point"](x=x, y=0.0, z=0.0),
        orientation=G["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0))
    twist = G["geometry_msgs/msg/Twist"](
        linear=G["geometry_msgs/msg/Vector3"](x=3.0, y=0.0, z=0.0),
        angular=G["geometry_msgs/msg/Vector3"](x=0.0, y=0.0, z=0.0))
    return Odometry(
        header=header(t), child_frame_id="base_link",
        pose=G["geometry_msgs/msg/PoseWithCovariance"](pose=pose, covariance=np.zeros(36)),
        twist=G["geometry_msgs/msg/TwistWithCovariance"](twist=twist, covariance=np.zeros(36)))


def scan(t, x):
    n, a0, a1 = 720, math.radians(-135), math.radians(135)
    inc = (a1 - a0) / (n - 1)
    r = np.full(n, np.inf, np.float32)
    for j in range(n):
        a = a0 + j * inc
        if abs(a) <= math.radians(30):
            r[j] = (20.0 - x) / math.cos(a)
    r[0] = np.nan
    return LaserScan(header=header(t), angle_min=a0, angle_max=a1, angle_increment=inc,
                     time_increment=0.0, scan_time=0.1, range_min=0.1, range_max=40.0,
                     ranges=r, intensities=np.zeros(0, np.float32))


def main(out=here / "drive", seconds=6.0, storage=StoragePlugin.MCAP, snapshot=None,
         compression=None):
    """The drive; with `snapshot`, the bag's folder is also copied there as it stands 14 s
    into the recording (past rosbags' first MCAP chunk of 1 MiB), the writer still open:
    what a crash or a power cut leaves."""
    shutil.rmtree(out, ignore_errors=True)
    t0 = 100.0
    w = Writer(out, version=8, storage_plugin=storage)
    if compression is not None:
        w.set_compression(compression, CompressionFormat.ZSTD)
    with w:
        c = {name: w.add_connection(topic, ty, typestore=ts) for name, topic, ty in [
            ("odom", "/odom", "nav_msgs/msg/Odometry"),
            ("scan", "/scan", "sensor_msgs/msg/LaserScan"),
            ("ulc", "/vehicle/ulc_cmd", "ds_dbw_msgs/msg/UlcCmd"),
            ("steer", "/vehicle/steering_cmd", "ds_dbw_msgs/msg/SteeringCmd"),
            ("gear", "/vehicle/gear_report", "ds_dbw_msgs/msg/GearReport"),
            ("text", "/diagnostics_text", "std_msgs/msg/String"),
        ]}
        ulc = T["ds_dbw_msgs/msg/UlcCmd"]
        steer = T["ds_dbw_msgs/msg/SteeringCmd"]
        gear = T["ds_dbw_msgs/msg/GearReport"]
        for k in range(int(round(seconds * 50)) + 1):
            t = t0 + k * 0.02
            # A long bag (benches/) drives the 18 m again every 6 s, jumping back.
            x = 3.0 * k * 0.02 if seconds <= 6.0 else 3.0 * (k % 300) * 0.02
            ns = int(round(t * 1e9))
            put = lambda name, msg: w.write(c[name], ns, ts.serialize_cdr(msg, c[name].msgtype))
            put("odom", odom(t, x))
            put("ulc", ulc(header=header(t), cmd=3.0, cmd_type=1, limit_accel=0.0,
                           limit_decel=0.0, limit_jerk_throttle=0.0, limit_jerk_brake=0.0,
                           enable=True, clear=False, enable_shift=False,
                           enable_shift_park=False, coast_decel=False))
            put("steer", steer(header=header(t), cmd=0.0, cmd_type=3, cmd_rate=0.0,
                               cmd_accel=0.0, enable=True, clear=False, ignore=False))
            if k % 5 == 0:
                put("scan", scan(t, x))
                put("gear", gear(header=header(t), gear=4, cmd=4, driver=4))
            if k % 50 == 0:
                put("text", String(data=f"t={t:.1f}"))
            if snapshot is not None and k == 700:
                shutil.rmtree(snapshot, ignore_errors=True)
                shutil.copytree(out, snapshot)


def pose_twist(out=here / "pose_twist"):
    """A bag of geometry_msgs/PoseStamped on /pose at 10 Hz (x = 2 t, heading north-east
    at 45 deg) with no pose from t = 2 to 3.5 s, and TwistStamped on /vehicle/twist at 50 Hz
    (2 m/s, yaw rate 0.1 rad/s), for 5 s from t = 50 s."""
    shutil.rmtree(out, ignore_errors=True)
    with Writer(out, version=8, storage_plugin=StoragePlugin.MCAP) as w:
        cp = w.add_connection("/pose", "geometry_msgs/msg/PoseStamped", typestore=ts)
        ct = w.add_connection("/vehicle/twist", "geometry_msgs/msg/TwistStamped", typestore=ts)
        q = math.sin(math.pi / 8), math.cos(math.pi / 8)
        for k in range(251):
            t = 50.0 + k * 0.02
            ns = int(round(t * 1e9))
            tw = G["geometry_msgs/msg/Twist"](
                linear=G["geometry_msgs/msg/Vector3"](x=2.0, y=0.0, z=0.0),
                angular=G["geometry_msgs/msg/Vector3"](x=0.0, y=0.0, z=0.1))
            w.write(ct, ns, ts.serialize_cdr(
                G["geometry_msgs/msg/TwistStamped"](header=header(t), twist=tw), ct.msgtype))
            tk = k * 0.02
            if k % 5 == 0 and not (2.0 < tk < 3.5):
                pose = G["geometry_msgs/msg/Pose"](
                    position=G["geometry_msgs/msg/Point"](x=2.0 * tk, y=2.0 * tk, z=0.0),
                    orientation=G["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=q[0], w=q[1]))
                w.write(cp, ns, ts.serialize_cdr(
                    G["geometry_msgs/msg/PoseStamped"](header=header(t), pose=pose), cp.msgtype))


def whole_seconds(out=here / "whole_seconds"):
    """Odometry at 50 Hz for 4 s from t = 10 s, its header stamps cut to whole seconds (a
    driver that stamps so) while the bag's log times run at 50 Hz."""
    shutil.rmtree(out, ignore_errors=True)
    with Writer(out, version=8, storage_plugin=StoragePlugin.MCAP) as w:
        c = w.add_connection("/odom", "nav_msgs/msg/Odometry", typestore=ts)
        for k in range(200):
            t = 10.0 + k * 0.02
            msg = odom(float(math.floor(t)), 3.0 * k * 0.02)
            w.write(c, int(round(t * 1e9)), ts.serialize_cdr(msg, c.msgtype))


def ros1(out, seconds=6.0, compression=None, snapshot=None):
    """The drive as a ROS 1 bag (`compression`: None, "bz2" or "lz4"); with `snapshot`,
    the file is also copied there as it stands 14 s in, the writer still open."""
    from rosbags.rosbag1 import Writer as Writer1
    ts1 = get_typestore(Stores.ROS1_NOETIC)
    for name in ["UlcCmd", "SteeringCmd", "GearReport"]:
        ts1.register(get_types_from_msg((msgs / f"{name}.msg").read_text(),
                                        f"ds_dbw_msgs/msg/{name}"))
    T1 = ts1.types
    P = lambda name, **kw: T1[name](**kw)
    out.unlink(missing_ok=True)
    seq = [0]

    def hdr(t):
        sec = int(t)
        seq[0] += 1
        return P("std_msgs/msg/Header", seq=seq[0], frame_id="base_link",
                 stamp=P("builtin_interfaces/msg/Time", sec=sec,
                         nanosec=int(round((t - sec) * 1e9))))

    def vec(x=0.0, y=0.0, z=0.0):
        return P("geometry_msgs/msg/Vector3", x=x, y=y, z=z)

    w = Writer1(out)
    if compression is not None:
        w.set_compression(Writer1.CompressionFormat[compression.upper()])
    t0 = 100.0
    with w:
        c = {name: w.add_connection(topic, ty, typestore=ts1) for name, topic, ty in [
            ("odom", "/odom", "nav_msgs/msg/Odometry"),
            ("scan", "/scan", "sensor_msgs/msg/LaserScan"),
            ("ulc", "/vehicle/ulc_cmd", "ds_dbw_msgs/msg/UlcCmd"),
            ("steer", "/vehicle/steering_cmd", "ds_dbw_msgs/msg/SteeringCmd"),
            ("gear", "/vehicle/gear_report", "ds_dbw_msgs/msg/GearReport"),
            ("text", "/diagnostics_text", "std_msgs/msg/String"),
        ]}
        for k in range(int(round(seconds * 50)) + 1):
            t = t0 + k * 0.02
            x = 3.0 * k * 0.02 if seconds <= 6.0 else 3.0 * (k % 300) * 0.02
            ns = int(round(t * 1e9))
            put = lambda name, msg: w.write(c[name], ns, ts1.serialize_ros1(msg, c[name].msgtype))
            pose = P("geometry_msgs/msg/Pose",
                     position=P("geometry_msgs/msg/Point", x=x, y=0.0, z=0.0),
                     orientation=P("geometry_msgs/msg/Quaternion", x=0.0, y=0.0, z=0.0, w=1.0))
            twist = P("geometry_msgs/msg/Twist", linear=vec(3.0), angular=vec())
            put("odom", P("nav_msgs/msg/Odometry", header=hdr(t), child_frame_id="base_link",
                          pose=P("geometry_msgs/msg/PoseWithCovariance", pose=pose,
                                 covariance=np.zeros(36)),
                          twist=P("geometry_msgs/msg/TwistWithCovariance", twist=twist,
                                  covariance=np.zeros(36))))
            put("ulc", P("ds_dbw_msgs/msg/UlcCmd", header=hdr(t), cmd=3.0, cmd_type=1,
                         limit_accel=0.0, limit_decel=0.0, limit_jerk_throttle=0.0,
                         limit_jerk_brake=0.0, enable=True, clear=False, enable_shift=False,
                         enable_shift_park=False, coast_decel=False))
            put("steer", P("ds_dbw_msgs/msg/SteeringCmd", header=hdr(t), cmd=0.0, cmd_type=3,
                           cmd_rate=0.0, cmd_accel=0.0, enable=True, clear=False,
                           ignore=False))
            if k % 5 == 0:
                s2 = scan(t, x)
                put("scan", P("sensor_msgs/msg/LaserScan", header=hdr(t),
                              angle_min=s2.angle_min, angle_max=s2.angle_max,
                              angle_increment=s2.angle_increment, time_increment=0.0,
                              scan_time=0.1, range_min=0.1, range_max=40.0, ranges=s2.ranges,
                              intensities=s2.intensities))
                put("gear", P("ds_dbw_msgs/msg/GearReport", header=hdr(t), gear=4, cmd=4,
                              driver=4))
            if k % 50 == 0:
                put("text", P("std_msgs/msg/String", data=f"t={t:.1f}"))
            if snapshot is not None and k == 700:
                w.bio.flush()
                shutil.copyfile(out, snapshot)


def compressed():
    """The drive in each storage with zstd message and file compression."""
    for name, storage, mode in [
        ("zstd_message", StoragePlugin.MCAP, CompressionMode.MESSAGE),
        ("zstd_message_db3", StoragePlugin.SQLITE3, CompressionMode.MESSAGE),
        ("zstd_file", StoragePlugin.MCAP, CompressionMode.FILE),
        ("zstd_file_db3", StoragePlugin.SQLITE3, CompressionMode.FILE),
    ]:
        main(here / name, storage=storage, compression=mode)


def ros1_all():
    (here / "ros1").mkdir(exist_ok=True)
    ros1(here / "ros1" / "drive.bag")
    ros1(here / "ros1" / "drive_bz2.bag", compression="bz2")
    ros1(here / "ros1" / "drive_lz4.bag", compression="lz4")
    import tempfile
    with tempfile.TemporaryDirectory() as scratch:
        ros1(Path(scratch) / "u.bag", seconds=16.0, snapshot=here / "ros1" / "unfinished.bag")


if __name__ == "__main__":
    import sys
    if len(sys.argv) == 3:  # OUT_DIR SECONDS: a longer bag (benches/bag_bench.py)
        main(Path(sys.argv[1]), float(sys.argv[2]))
    else:
        main()
        main(here / "drive_db3", storage=StoragePlugin.SQLITE3)
        pose_twist()
        whole_seconds()
        ros1_all()
        compressed()
        import tempfile
        for name, storage in [("unfinished", StoragePlugin.MCAP),
                              ("unfinished_db3", StoragePlugin.SQLITE3)]:
            with tempfile.TemporaryDirectory() as scratch:
                main(Path(scratch) / name, seconds=16.0, storage=storage,
                     snapshot=here / name)
