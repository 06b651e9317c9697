fn main() {
    let universe = mpi::initialize().unwrap();
    println!("{}", mpi::environment::library_version().unwrap());
    drop(universe);
}
