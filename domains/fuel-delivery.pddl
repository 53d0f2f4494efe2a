; Fuel delivery, numeric (pypddlengine bundled domain; PDDL 2.1 numeric fluents).
; Trucks carry packages between locations over roads. Driving a road uses as much fuel as the road
; is long, so a truck needs at least that much in its tank; at a depot a truck fills its tank,
; paying the depot's price per unit it takes on; a truck carries packages up to its capacity,
; counted by weight. Distances, tanks, capacities, weights and prices never change (they are
; folded into constants when the task is grounded); fuel, cargo, fuel used and money spent do.
; The metric adds the fuel used and the money spent. "refuel" reads the fuel before the step on
; both sides: the money is paid for (tank - fuel) of the old fuel (effects are simultaneous).
(define (domain fuel-delivery)
  (:requirements :strips :typing :numeric-fluents)
  (:types location truck package)
  (:predicates
    (at ?t - truck ?l - location)           ; truck ?t is at ?l
    (pkg-at ?p - package ?l - location)     ; package ?p lies at ?l
    (in ?p - package ?t - truck)            ; package ?p is in truck ?t
    (road ?from - location ?to - location)  ; a road leads from ?from to ?to
    (depot ?l - location))                  ; trucks can refuel at ?l
  (:functions
    (distance ?from - location ?to - location) - number
    (fuel ?t - truck) - number
    (tank ?t - truck) - number
    (cargo ?t - truck) - number
    (capacity ?t - truck) - number
    (weight ?p - package) - number
    (price ?l - location) - number
    (fuel-used) - number
    (money-spent) - number)

  (:action drive
    :parameters (?t - truck ?from - location ?to - location)
    :precondition (and (at ?t ?from) (road ?from ?to) (>= (fuel ?t) (distance ?from ?to)))
    :effect (and (not (at ?t ?from)) (at ?t ?to)
                 (decrease (fuel ?t) (distance ?from ?to))
                 (increase (fuel-used) (distance ?from ?to))))

  (:action load
    :parameters (?p - package ?t - truck ?l - location)
    :precondition (and (pkg-at ?p ?l) (at ?t ?l) (<= (+ (cargo ?t) (weight ?p)) (capacity ?t)))
    :effect (and (not (pkg-at ?p ?l)) (in ?p ?t) (increase (cargo ?t) (weight ?p))))

  (:action unload
    :parameters (?p - package ?t - truck ?l - location)
    :precondition (and (in ?p ?t) (at ?t ?l))
    :effect (and (not (in ?p ?t)) (pkg-at ?p ?l) (decrease (cargo ?t) (weight ?p))))

  (:action refuel
    :parameters (?t - truck ?l - location)
    :precondition (and (at ?t ?l) (depot ?l) (< (fuel ?t) (tank ?t)))
    :effect (and (assign (fuel ?t) (tank ?t))
                 (increase (money-spent) (* (price ?l) (- (tank ?t) (fuel ?t)))))))
