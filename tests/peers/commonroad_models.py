"""The simulated Polaris against CommonRoad's vehicle models (commonroad-vehicle-models):
python3 tests/peers/commonroad_models.py [STEADY_TURN_BINARY]

Steady turns of the dynamic single track (CommonRoad's ST, linear tires) at 3 to 7.8
m/s, and the kinematic single track (KS) at 0.3 m/s, each with the parameters acres
prints (`steady_turn params`). ST scales one normalised cornering stiffness by each
axle's load, so acres is run with its two cornering stiffnesses set the same way (their
sum unchanged). Also a 0.5 Hz sine steer of 0.02 rad at 6 m/s for 3 s (the linear
range): the final lateral offset of the CG against ST's with the same steering. Asserts
agreement within 2 % (ST, steady and sine) and 0.5 % (KS), and prints the figures
docs/validation.md quotes.

Needs commonroad-vehicle-models (pip install commonroad-vehicle-models); scripts/test
runs it where that installs. The binary defaults to target/release/examples/steady_turn
(built by `cargo test --release`).
"""
import json
import math
import subprocess
import sys

from vehiclemodels.init_ks import init_ks
from vehiclemodels.parameters_vehicle2 import parameters_vehicle2
from vehiclemodels.vehicle_dynamics_ks import vehicle_dynamics_ks
from vehiclemodels.vehicle_dynamics_st import vehicle_dynamics_st

G = 9.81
binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/examples/steady_turn"
ours = json.loads(subprocess.run([binary, "params"], check=True, capture_output=True,
                                 text=True).stdout)
m, L, a = ours["mass_kg"], ours["wheelbase_m"], ours["cg_to_front_m"]
b = L - a
cf, cr = ours["cornering_stiffness_n_per_rad"]
# One normalised stiffness C_S (per unit load) with the same sum over both axles.
c_s = (cf + cr) / (m * G)
ours["cornering_stiffness_n_per_rad"] = [c_s * m * G * b / L, c_s * m * G * a / L]

p = parameters_vehicle2()
p.a, p.b, p.m, p.I_z, p.h_s = a, b, m, ours["yaw_inertia_kgm2"], ours["cg_height_m"]
p.tire.p_dy1 = 1.0
p.tire.p_ky1 = -c_s
p.steering.min, p.steering.max = -1.0, 1.0
p.steering.v_min, p.steering.v_max = -10.0, 10.0
p.longitudinal.v_min, p.longitudinal.v_max = -20.0, 50.0


def rk4(f, x, dt, n):
    for _ in range(n):
        k1 = f(x)
        k2 = f([xi + dt / 2 * ki for xi, ki in zip(x, k1)])
        k3 = f([xi + dt / 2 * ki for xi, ki in zip(x, k2)])
        k4 = f([xi + dt * ki for xi, ki in zip(x, k3)])
        x = [xi + dt / 6 * (p1 + 2 * p2 + 2 * p3 + p4)
             for xi, p1, p2, p3, p4 in zip(x, k1, k2, k3, k4)]
    return x


def st_steady(vx, delta):
    """ST at a constant speed (`vx` along the body) and steering angle for 20 s: yaw
    rate, a_y, slip angle at the CG. The slip is found by iterating the speed."""
    beta = 0.0
    for _ in range(3):
        r, ay, beta = st_run(vx / math.cos(beta), delta)
    return r, ay, beta


def st_run(v, delta):
    x = [0.0, 0.0, delta, v, 0.0, 0.0, 0.0]
    x = rk4(lambda s: vehicle_dynamics_st(s, [0.0, 0.0], p), x, 1e-3, 20000)
    v, r, beta = x[3], x[5], x[6]
    return r, v * r, beta


def ks_yaw_rate(vx, delta):
    # KS's speed is the rear axle's, which is acres's speed along the body.
    x = init_ks([0.0, 0.0, delta, vx, 0.0])
    return vehicle_dynamics_ks(x, [0.0, 0.0], p)[4]


cases = [(v, d) for v in (3.0, 5.0, 7.8) for d in (0.02, 0.05, 0.1)]
slow = [(0.3, d) for d in (0.1, 0.3, 0.6)]
lines = "".join(f"{v} {d}\n" for v, d in cases + slow)
run = subprocess.run([binary, "turns", json.dumps(ours)], input=lines, check=True,
                     capture_output=True, text=True).stdout.split("\n")
got = {(float(w[0]), float(w[1])): tuple(map(float, w[2:])) for w in
       (line.split() for line in run if line)}

worst = 0.0
print("speed  delta   ST yaw rate  acres      a_y ST  acres   beta ST  acres")
for v, d in cases:
    vx, r, ay, beta = got[(v, d)]
    r_st, ay_st, beta_st = st_steady(vx, d)
    # acres's speed is the CG's along the body; ST's along its velocity.
    err = abs(r / r_st - 1)
    worst = max(worst, err)
    print(f"{v:5.1f} {d:6.3f}  {r_st:10.5f} {r:10.5f}  {ay_st:6.3f} {ay:6.3f}  "
          f"{beta_st:7.4f} {beta:7.4f}")
    assert err < 0.02, (v, d, r_st, r)
print(f"ST: largest yaw-rate difference {worst * 100:.2f} %")
worst_ks = 0.0
for v, d in slow:
    vx, r, _, _ = got[(v, d)]
    r_ks = ks_yaw_rate(vx, d)
    worst_ks = max(worst_ks, abs(r / r_ks - 1))
    print(f"KS at {v} m/s, delta {d}: yaw rate {r_ks:.6f}, acres {r:.6f}")
    assert abs(r / r_ks - 1) < 0.005, (v, d, r_ks, r)
print(f"KS: largest yaw-rate difference {worst_ks * 100:.3f} %")


def st_sine(v, amp, freq, seconds):
    """ST from straight running at `v` with the road wheels at amp sin(2 pi f t) (its
    input is the steering rate): the CG's final lateral offset."""
    w = 2 * math.pi * freq
    x, t, dt = [0.0, 0.0, 0.0, v, 0.0, 0.0, 0.0], 0.0, 1e-3

    def f(s, t):
        return vehicle_dynamics_st(s, [amp * w * math.cos(w * t), 0.0], p)

    for _ in range(int(round(seconds / dt))):
        k1 = f(x, t)
        k2 = f([xi + dt / 2 * ki for xi, ki in zip(x, k1)], t + dt / 2)
        k3 = f([xi + dt / 2 * ki for xi, ki in zip(x, k2)], t + dt / 2)
        k4 = f([xi + dt * ki for xi, ki in zip(x, k3)], t + dt)
        x = [xi + dt / 6 * (p1 + 2 * p2 + 2 * p3 + p4)
             for xi, p1, p2, p3, p4 in zip(x, k1, k2, k3, k4)]
        t += dt
    return x[1]


speed, amp, freq, seconds = 6.0, 0.02, 0.5, 3.0
out = subprocess.run([binary, "sine", str(speed), str(amp), str(freq), str(seconds),
                      json.dumps(ours)], check=True, capture_output=True, text=True).stdout
y_ours = float(out.split()[1])
y_st = st_sine(speed, amp, freq, seconds)
print(f"sine steer {amp} rad at {freq} Hz, {speed} m/s, {seconds} s: final lateral offset "
      f"ST {y_st:.4f} m, acres {y_ours:.4f} m ({abs(y_ours / y_st - 1) * 100:.2f} %)")
assert abs(y_ours / y_st - 1) < 0.02, (y_st, y_ours)
